import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** What a caller without valid credentials is told: a status, a detail, headers to send. */
export interface Refusal {
  readonly status: number;
  readonly detail: string;
  readonly headers?: Readonly<Record<string, string>>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set on an open path reached without valid credentials: the refusal held back. The route
     * answers the caller as anonymous; anything else that would answer sends it instead.
     */
    berthRefusal?: Refusal;
  }
}

export interface ApiKeyOptions {
  /** Accepts a presented key, in constant time. */
  readonly accepts: (presented: string) => boolean;
  /** Paths served without a key (health probes); one ending in `/*` opens all below it. */
  readonly publicPaths: readonly string[];
  /**
   * Paths that answer with or without valid credentials (`/info`): without, the request goes on
   * with `berthRefusal` set, for the route to show an anonymous caller less.
   */
  readonly openPaths?: readonly string[];
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

/** Sends a refusal as `{"detail": ...}` with its status and headers. */
export async function sendRefusal(reply: FastifyReply, refusal: Refusal): Promise<FastifyReply> {
  await reply
    .status(refusal.status)
    .headers(refusal.headers ?? {})
    .send({ detail: refusal.detail });
  return reply;
}

/**
 * Answers 401 with a JSON detail before any route runs when the key is missing or wrong; on an
 * open path, lets the request on with the refusal held back.
 */
export function requireApiKey(app: FastifyInstance, options: ApiKeyOptions): void {
  const isPublic = publicPathMatcher(options.publicPaths);
  const isOpen = publicPathMatcher(options.openPaths ?? []);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (isPublic(request.url) || options.preauthenticated?.(request)) return undefined;
    const key = presentedKey(request);
    let refusal: Refusal | undefined;
    if (key === undefined) {
      refusal = { status: 401, detail: 'Missing API key: send it in the x-api-key header' };
    } else if (!options.accepts(key)) {
      refusal = { status: 401, detail: 'Invalid API key' };
    }
    if (refusal === undefined) return undefined;
    if (isOpen(request.url)) {
      request.berthRefusal = refusal;
      return undefined;
    }
    return sendRefusal(reply, refusal);
  });
}
