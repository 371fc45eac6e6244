import { Injectable, type CanActivate, type ExecutionContext, Inject } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '#libs/domain';
import { UploadStore } from './upload-store.js';

/** An upload is let in by its URL's signature alone, and only until the URL expires. */
@Injectable()
export class SignedUploadGuard implements CanActivate {
  constructor(@Inject(UploadStore) private readonly uploads: UploadStore) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const { deployment_id, file } = request.params as { deployment_id: string; file: string };
    const { expires, signature } = request.query as { expires?: string; signature?: string };
    const objectPath = `uploads/${deployment_id}/${file}`;
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
    return true;
  }
}
