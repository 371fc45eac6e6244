import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { presentedKey, publicPathMatcher, sendRefusal, type Refusal } from '#libs/http';
import { webRequestOf } from '../common/web-request.js';
import { AuthRejection, type AuthContext, type CustomAuth } from './custom-auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request acts for, when the application has its own authentication. */
    berthAuth?: AuthContext;
  }
}

/** What a caller `authenticate` refused is told: the application's status, or 500 for a crash. */
function refusalOf(error: unknown): Refusal {
  if (error instanceof AuthRejection) {
    return { status: error.status, detail: error.message, headers: error.headers };
  }
  const reason = error instanceof Error ? error.message : String(error);
  return { status: 500, detail: `The application's authenticate failed: ${reason}` };
}

/**
 * With the application's own authentication (`auth.path`), its `authenticate` decides who a
 * request is, in place of the API key; a request that carries a valid API key acts as the
 * platform and is not filtered. Public paths are let through; open paths (`/info`) too when
 * `authenticate` refuses, with the refusal held back (`berthRefusal`).
 */
export function registerCustomAuthentication(
  app: FastifyInstance,
  auth: CustomAuth,
  options: {
    accepts: (key: string) => boolean;
    publicPaths: readonly string[];
    /** Requests served to anyone, beyond the public paths (the files of UI bundles). */
    isPublic?: (request: FastifyRequest) => boolean;
    openPaths?: readonly string[];
  },
): void {
  const isPublicPath = publicPathMatcher(options.publicPaths);
  const isPublic = (request: FastifyRequest): boolean =>
    isPublicPath(request.url) || (options.isPublic?.(request) ?? false);
  const isOpen = publicPathMatcher(options.openPaths ?? []);
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // Let in by an earlier hook (a WebSocket ticket issued to someone this hook authenticated).
    if (isPublic(request) || request.berthAuth !== undefined) return undefined;
    const key = presentedKey(request);
    if (key !== undefined && options.accepts(key)) {
      request.berthAuth = { kind: 'platform' };
      return undefined;
    }
    try {
      request.berthAuth = await auth.authenticate(webRequestOf(request, false));
      return undefined;
    } catch (error) {
      const refusal = refusalOf(error);
      if (!isOpen(request.url)) return sendRefusal(reply, refusal);
      request.berthRefusal = refusal;
      return undefined;
    }
  });
}
