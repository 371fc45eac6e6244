import { Returns } from '#libs/http';
import {
  Controller,
  HttpCode,
  Param,
  Put,
  Req,
  UnsupportedMediaTypeException,
  UseGuards,
  Inject,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { UPLOAD_CONTENT_TYPES } from './upload-body-parser.js';
import { SignedUploadGuard } from './signed-upload.guard.js';
import { UploadStore, type ReceivedUpload } from './upload-store.js';

@Controller('v2/uploads')
export class UploadsController {
  constructor(@Inject(UploadStore) private readonly uploads: UploadStore) {}

  @Returns('ReceivedUpload')
  @Put(':deployment_id/:file')
  @HttpCode(200)
  @UseGuards(SignedUploadGuard)
  async put(
    @Param('deployment_id') deploymentId: string,
    @Param('file') file: string,
    @Req() request: FastifyRequest,
  ): Promise<ReceivedUpload> {
    // Only the tarball types stream through untouched; another parser (JSON, text) has already
    // decoded the body, which would be stored mangled or not at all.
    if (!(request.body instanceof Readable)) {
      throw new UnsupportedMediaTypeException(
        `Send the tarball with Content-Type ${UPLOAD_CONTENT_TYPES.join(', ')}`,
      );
    }
    return this.uploads.receive(`uploads/${deploymentId}/${file}`, request.body);
  }
}
