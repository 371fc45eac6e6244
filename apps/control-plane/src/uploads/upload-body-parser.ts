import type { FastifyInstance, FastifyRequest } from 'fastify';
import { askForJson } from '#libs/http';

/** Uploads authenticate with the signature in their URL, not with an API key. */
export const UPLOAD_PATH = /^\/v2\/uploads\/[^/]+\/[^/]+$/;
export const UPLOAD_CONTENT_TYPES = [
  'application/gzip',
  'application/x-gzip',
  'application/octet-stream',
  'application/x-tar',
];

export function isUploadRequest(method: string, path: string): boolean {
  return method === 'PUT' && UPLOAD_PATH.test(path);
}

class UnsupportedMediaType extends Error {
  readonly statusCode = 415;
}

/**
 * Tarballs stream to disk as they arrive instead of being parsed into memory. Only the upload
 * route gets the raw stream: any other route given a tarball type would hand a socket stream to
 * the validation pipe, so it answers 415 before its handler runs.
 */
export function registerUploadBodyParser(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(UPLOAD_CONTENT_TYPES, (request: FastifyRequest, payload, done) => {
    const path = request.url.split('?', 1)[0] ?? '';
    if (isUploadRequest(request.method, path)) {
      done(null, payload);
      return;
    }
    payload.resume();
    done(
      new UnsupportedMediaType(
        `Content-Type ${request.headers['content-type'] ?? ''} is only accepted by uploads; send JSON`,
      ),
      undefined,
    );
  });
}

/** What a body of an unsupported type is told: uploads take a tarball, the rest JSON. */
export function uploadAwareUnsupportedType(request: FastifyRequest, contentType: string): string {
  const path = request.url.split('?', 1)[0] ?? '';
  if (isUploadRequest(request.method, path)) {
    return `Send the tarball with Content-Type ${UPLOAD_CONTENT_TYPES.join(', ')}, not ${contentType}`;
  }
  return askForJson(request, contentType);
}
