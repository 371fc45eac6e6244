import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export interface ApiKeyOptions {
  /** Accepts a presented key, in constant time. */
  readonly accepts: (presented: string) => boolean;
  /** Paths served without a key (health probes). */
  readonly publicPaths: readonly string[];
}

export function singleKey(expected: string): (presented: string) => boolean {
  const expectedDigest = digest(expected);
  return (presented) => timingSafeEqual(digest(presented), expectedDigest);
}

/** The key from `x-api-key`, or from `Authorization: Bearer <key>`. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header) return header;
  const authorization = request.headers.authorization;
  const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
  return bearer?.trim() ? bearer.trim() : undefined;
}

/** Answers 401 with a JSON detail before any route runs when the key is missing or wrong. */
export function requireApiKey(app: FastifyInstance, options: ApiKeyOptions): void {
  const open = new Set(options.publicPaths);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (open.has(request.url.split('?')[0] ?? '')) return;
    const key = presentedKey(request);
    if (key === undefined) {
      await reply.status(401).send({ detail: 'Missing API key: send it in the x-api-key header' });
      return reply;
    }
    if (!options.accepts(key)) {
      await reply.status(401).send({ detail: 'Invalid API key' });
      return reply;
    }
    return undefined;
  });
}
