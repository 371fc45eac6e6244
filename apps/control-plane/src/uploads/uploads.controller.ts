import { Returns } from '#libs/http';
import {
  Controller,
  HttpCode,
  Param,
  Put,
  Query,
  Req,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { DomainError } from '#libs/domain';
import { UPLOAD_CONTENT_TYPES } from './upload-body-parser.js';
import { UploadStore, type ReceivedUpload } from './upload-store.js';

@Controller('v2/uploads')
export class UploadsController {
  constructor(private readonly uploads: UploadStore) {}

  @Returns('ReceivedUpload')
  @Put(':deployment_id/:file')
  @HttpCode(200)
  async put(
    @Param('deployment_id') deploymentId: string,
    @Param('file') file: string,
    @Query('expires') expires: string | undefined,
    @Query('signature') signature: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<ReceivedUpload> {
    const objectPath = `uploads/${deploymentId}/${file}`;
    if (
      !expires ||
      !signature ||
      !this.uploads.verify(objectPath, expires, signature, new Date())
    ) {
      throw new DomainError(
        'unauthorized',
        'The upload URL is invalid or has expired: ask POST /v2/deployments/{id}/upload-url for a new one',
      );
    }
    // Only the tarball types stream through untouched; another parser (JSON, text) has already
    // decoded the body, which would be stored mangled or not at all.
    if (!(request.body instanceof Readable)) {
      throw new UnsupportedMediaTypeException(
        `Send the tarball with Content-Type ${UPLOAD_CONTENT_TYPES.join(', ')}`,
      );
    }
    return this.uploads.receive(objectPath, request.body);
  }
}
