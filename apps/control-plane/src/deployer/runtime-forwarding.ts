import {
  request,
  type Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { Duplex, Readable } from 'node:stream';

/** Headers about one hop's connection, never passed on (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/** The headers a proxy passes on: all but the hop-by-hop ones and those `Connection` names. */
export function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    (headers.connection ?? '').split(',').map((name) => name.trim().toLowerCase()),
  );
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name)),
  );
}

/** A JSON `{detail}` answer, or the connection cut when an answer had already begun. */
export function answerJson(
  response: ServerResponse,
  status: number,
  detail: string,
  headers: OutgoingHttpHeaders = {},
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    connection: 'close',
  });
  response.end(JSON.stringify({ detail }));
}

/** Where a runtime on this machine serves: a loopback port, or a Unix socket's path (jailed). */
export type RuntimeEndpoint = number | string;

/** The `http.request` options that reach the endpoint. */
export const connectionTo = (
  endpoint: RuntimeEndpoint,
): { host: string; port: number } | { socketPath: string } =>
  typeof endpoint === 'number' ? { host: '127.0.0.1', port: endpoint } : { socketPath: endpoint };

export interface RuntimeRequest {
  readonly endpoint: RuntimeEndpoint;
  readonly method: string;
  /** The path and query, still encoded as the client sent them. */
  readonly path: string;
  /** End-to-end headers only (see `endToEnd`), rewritten as the proxy rewrites them. */
  readonly headers: OutgoingHttpHeaders;
  /** The body: streamed from the client, or already read (the gateway's parsed JSON). */
  readonly body?: Readable | string;
  readonly agent?: Agent;
}

/**
 * Sends a request to a runtime on this machine and its answer back through `response`, streams
 * as they come; a client that goes away takes its request with it. Upgrades do not come here:
 * they are handed over (`handOverUpgrade`). Throws, before anything is sent, for a path or header
 * Node will not send.
 */
export function forwardToRuntime(target: RuntimeRequest, response: ServerResponse): void {
  let switched = false;
  const upstream = request(
    {
      ...connectionTo(target.endpoint),
      method: target.method,
      path: target.path,
      headers: target.headers,
      agent: target.agent,
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      // Streams (SSE) go out as they come.
      response.flushHeaders();
      answer.pipe(response);
      answer.on('error', () => response.destroy());
    },
  );
  upstream.on('upgrade', (_answer: IncomingMessage, socket: Duplex) => {
    switched = true;
    socket.destroy();
    answerJson(response, 502, "The deployment's runtime switched protocols unasked");
  });
  upstream.on('error', () => {
    if (!switched) answerJson(response, 502, "The deployment's runtime did not answer");
  });
  response.on('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
  if (target.body === undefined) upstream.end();
  else if (typeof target.body === 'string') upstream.end(target.body);
  else target.body.pipe(upstream);
}
