import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestIdOptions, type Logger } from '#libs/logging';

export interface ServerLimits {
  /** The largest JSON body. */
  readonly bodyLimitBytes: number;
  /** The longest a client may take to send a whole request, body included. */
  readonly requestTimeoutMs: number;
  /** The process's structured logger, which Fastify logs through. */
  readonly logger: Logger;
}

/** A connection that neither sends nor receives this long is closed; SSE heartbeats keep streams alive. */
const IDLE_TIMEOUT_MS = 30_000;
/** The longest a client may take to send its request headers. */
const HEADERS_TIMEOUT_MS = 15_000;
/** Path parameters are ids and names: anything longer is no id of ours. */
const MAX_PARAM_LENGTH = 500;

/**
 * Fastify's options for both servers: limits on what a client may send and for how long, and
 * errors of Fastify's router (a malformed URL, an overlong parameter) answered as JSON `detail`.
 */
export function serverOptions(limits: ServerLimits) {
  return {
    bodyLimit: limits.bodyLimitBytes,
    loggerInstance: limits.logger,
    ...requestIdOptions,
    // Closing cuts what is still open (the runtime drains its streams first: HttpDrain); their
    // clients resume with Last-Event-ID, on another replica too.
    forceCloseConnections: true,
    connectionTimeout: IDLE_TIMEOUT_MS,
    requestTimeout: limits.requestTimeoutMs,
    http: { headersTimeout: HEADERS_TIMEOUT_MS },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (
      error: { statusCode?: number; message: string },
      _request: FastifyRequest,
      reply: FastifyReply,
    ): void => {
      void reply
        .status(error.statusCode ?? 400)
        .header('content-type', 'application/json')
        .send({ detail: error.message });
    },
  };
}
