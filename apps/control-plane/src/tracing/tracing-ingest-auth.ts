import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TracingTokens } from './tracing.service.js';

/** The ingest route as Fastify's router names it. */
const INGEST_ROUTE = '/v1/tracing-projects/:project_id/runs';

/** The project's token in `Authorization: Bearer <hex>`, or undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+([0-9a-f]+)$/i.exec(authorization ?? '')?.[1];
}

/**
 * The tracing ingest takes no key but its project's token: it is checked as the request arrives,
 * before its body is read, parsed or validated, so that a caller without the token learns nothing
 * from the body's checks (401 first, never a 400, 415 or 422).
 */
export function checkTracingTokensFirst(fastify: FastifyInstance, tokens: TracingTokens): void {
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    if (request.method !== 'POST' || request.routeOptions.url !== INGEST_ROUTE) {
      done();
      return;
    }
    const { project_id: projectId = '' } = request.params as Record<string, string | undefined>;
    const token = bearerToken(request.headers.authorization);
    if (token && tokens.accepts(projectId, token)) {
      done();
      return;
    }
    void reply
      .status(401)
      .header('content-type', 'application/json')
      .send({ detail: 'Invalid tracing token for this project' });
  });
}
