import type { Server, ServerOptions } from 'node:http';
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
/** How long an idle kept-alive connection stays open between requests (Fastify's default). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** How often Node looks for requests past those timeouts (its default, 30 s, lets them run late). */
const CONNECTIONS_CHECKING_INTERVAL_MS = 5_000;
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
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: nodeServerOptions(),
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

/** The options of a Node HTTP server made without Fastify, for the same headers timeout. */
export function nodeServerOptions(): ServerOptions {
  return {
    headersTimeout: HEADERS_TIMEOUT_MS,
    connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
  };
}

/**
 * Gives a Node HTTP server made without Fastify (a deployment's port) the timeouts Fastify gives
 * both servers: a client that trickles its headers or body, or says nothing, is cut off alike.
 * Upgraded connections (WebSockets) are no longer HTTP and are left alone by them.
 */
export function applyServerTimeouts(server: Server, requestTimeoutMs: number): void {
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = requestTimeoutMs;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.setTimeout(IDLE_TIMEOUT_MS);
}
