import type { FastifyInstance, FastifyRequest } from 'fastify';
import { runWithEncryptionMetadata, type CustomKeyWrapper } from './custom-encryption.js';

const HEADER = 'x-encryption-context';

/** `X-Encryption-Context`: a JSON object, as text or base64 of it; undefined when it is neither. */
export function headerMetadata(
  value: string | string[] | undefined,
): Record<string, unknown> | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return {};
  for (const candidate of [text, Buffer.from(text, 'base64').toString('utf8')]) {
    try {
      const parsed: unknown = JSON.parse(candidate);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
        return parsed as Record<string, unknown>;
      }
    } catch {
      // Not this form: the next one.
    }
  }
  return undefined;
}

const userOf = (request: FastifyRequest): unknown =>
  request.berthAuth?.kind === 'user' ? request.berthAuth.user : null;

/**
 * Each request runs with the metadata the application's `context` handler derives from its
 * authenticated user (and the `X-Encryption-Context` header): the data keys made while serving
 * it are wrapped with that metadata, and unwrapped with it later. Registered after authentication.
 */
export function registerEncryptionContext(
  fastify: FastifyInstance,
  encryption: CustomKeyWrapper,
): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const header = headerMetadata(request.headers[HEADER]);
    if (header === undefined) {
      void reply.code(422).send({ detail: `${HEADER} must be a JSON object (or base64 of one)` });
      return;
    }
    encryption.requestMetadata(userOf(request), header).then(
      (metadata) => {
        runWithEncryptionMetadata(metadata, done);
      },
      (error: unknown) => {
        done(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
