import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CorsSection } from '../graphs/graph-config-sections.js';

/** What a browser may read of responses by default: paging totals and created resources' URLs. */
const DEFAULT_EXPOSED = ['content-location', 'x-pagination-total'];
const DEFAULT_METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH'];

/** Which origin the response allows: `*`, the request's own origin, or none. */
function allowedOrigin(cors: CorsSection | undefined, origin: string): string | undefined {
  if (!cors) return '*';
  if (cors.allowOriginRegex !== undefined) {
    return new RegExp(cors.allowOriginRegex).test(origin) ? origin : undefined;
  }
  const origins = cors.allowOrigins ?? ['*'];
  if (origins.includes('*')) return cors.allowCredentials ? origin : '*';
  return origins.includes(origin) ? origin : undefined;
}

/**
 * Cross-origin requests, as the JS server answers them: without `http.cors` every origin may
 * call (the API key still guards every route); with it, the origins, methods and headers it
 * lists. Preflights are answered here, before the API key is asked for.
 */
export function registerCors(app: FastifyInstance, cors: CorsSection | undefined): void {
  const exposed = [...new Set([...(cors?.exposeHeaders ?? []), ...DEFAULT_EXPOSED])].join(', ');
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin === undefined) return undefined;
    const allowed = allowedOrigin(cors, origin);
    const preflight =
      request.method === 'OPTIONS' &&
      request.headers['access-control-request-method'] !== undefined;
    if (allowed === undefined) {
      if (!preflight) return undefined;
      await reply.status(403).send({ detail: `Origin ${origin} is not allowed (http.cors)` });
      return reply;
    }
    void reply.header('access-control-allow-origin', allowed);
    if (allowed !== '*') void reply.header('vary', 'Origin');
    if (cors?.allowCredentials) void reply.header('access-control-allow-credentials', 'true');
    if (!preflight) {
      void reply.header('access-control-expose-headers', exposed);
      return undefined;
    }
    const requested = request.headers['access-control-request-headers'];
    void reply.header(
      'access-control-allow-methods',
      (cors?.allowMethods ?? DEFAULT_METHODS).join(', '),
    );
    const headers = cors?.allowHeaders?.join(', ') ?? requested;
    if (headers) void reply.header('access-control-allow-headers', headers);
    if (cors?.maxAge !== undefined)
      void reply.header('access-control-max-age', String(cors.maxAge));
    await reply.status(204).send();
    return reply;
  });
}
