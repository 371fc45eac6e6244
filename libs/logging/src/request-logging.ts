import { LogController, type FastifyInstance } from 'fastify';
import { requestIdFrom, runInRequest } from './request-context.js';

export const REQUEST_ID_HEADER = 'x-request-id';
const HEALTH_ROUTE = '/ok';

/** Fastify's options for request ids: the client's `x-request-id`, or a new one. */
export const requestIdOptions = {
  genReqId: (request: { headers: Record<string, string | string[] | undefined> }): string =>
    requestIdFrom(request.headers[REQUEST_ID_HEADER]),
  // One line per answered request, written by registerRequestLogging, instead of Fastify's two.
  logController: new LogController({
    disableRequestLogging: true,
    requestIdLogLabel: 'request_id',
  }),
};

/**
 * Each request runs in its own context (so every line logged while it is served names it),
 * answers with its id in `x-request-id`, and is logged once when answered: method, route,
 * status and time taken. Its URL's query is left out, as a query can carry what is not ours.
 */
export function registerRequestLogging(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    runInRequest(request.id, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    // Health probes come every few seconds from the orchestrator: news only when debugging. A 503
    // (the database down, a read model stuck) is a condition said once where it is noticed, not
    // an error of each request it turns away.
    const level =
      route === HEALTH_ROUTE
        ? 'debug'
        : reply.statusCode === 503
          ? 'warn'
          : reply.statusCode >= 500
            ? 'error'
            : 'info';
    app.log[level](
      {
        request_id: request.id,
        method: request.method,
        path: request.url.split('?')[0],
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request answered',
    );
    done();
  });
}
