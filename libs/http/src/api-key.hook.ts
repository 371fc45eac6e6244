import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export interface ApiKeyOptions {
  /** Accepts a presented key, in constant time. */
  readonly accepts: (presented: string) => boolean;
  /** Paths served without a key (health probes); one ending in `/*` opens all below it. */
  readonly publicPaths: readonly string[];
  /** Requests an earlier hook let in by other means (a WebSocket ticket), not asked for a key. */
  readonly preauthenticated?: (request: FastifyRequest) => boolean;
}

export function singleKey(expected: string): (presented: string) => boolean {
  const expectedDigest = digest(expected);
  return (presented) => timingSafeEqual(digest(presented), expectedDigest);
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Accepts a key whose SHA-256 digest is one of `hexDigests` (lowercase hex), so that the keys
 * themselves are never held. Every digest is compared, in constant time, whatever matches.
 */
export function keyDigests(hexDigests: readonly string[]): (presented: string) => boolean {
  if (hexDigests.length === 0) throw new Error('keyDigests needs at least one digest');
  const expected = hexDigests.map((hex, index) => {
    if (!SHA256_HEX.test(hex)) {
      throw new Error(`keyDigests: digest ${index + 1} is not 64 lowercase hex digits`);
    }
    return Buffer.from(hex, 'hex');
  });
  return (presented) => {
    const presentedDigest = digest(presented);
    let accepted = false;
    for (const candidate of expected) {
      // No early exit: the time taken does not tell which digest, if any, matched.
      accepted = timingSafeEqual(presentedDigest, candidate) || accepted;
    }
    return accepted;
  };
}

/** The key from `x-api-key`, or from `Authorization: Bearer <key>`. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header) return header;
  const authorization = request.headers.authorization;
  const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
  return bearer?.trim() ? bearer.trim() : undefined;
}

/** Whether a request's URL is one of `publicPaths` (exact, or below one ending in `/*`). */
export function publicPathMatcher(publicPaths: readonly string[]): (url: string) => boolean {
  const exact = new Set(publicPaths.filter((path) => !path.endsWith('/*')));
  const prefixes = publicPaths
    .filter((path) => path.endsWith('/*'))
    .map((path) => path.slice(0, -1));
  return (url) => {
    const path = url.split('?')[0] ?? '';
    return exact.has(path) || prefixes.some((prefix) => path.startsWith(prefix));
  };
}

/** Answers 401 with a JSON detail before any route runs when the key is missing or wrong. */
export function requireApiKey(app: FastifyInstance, options: ApiKeyOptions): void {
  const isPublic = publicPathMatcher(options.publicPaths);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (isPublic(request.url) || options.preauthenticated?.(request)) return;
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
