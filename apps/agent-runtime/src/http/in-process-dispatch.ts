import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { InProcessFetch } from '../common/in-process-client.js';
import {
  IN_PROCESS_HEADER,
  type InProcessGrant,
  type InProcessGrants,
} from './in-process-grants.js';

/** A request handed to this server in process. */
export interface InProcessRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  /** A buffer (its length is set), or a stream sent as it comes (its length header kept). */
  readonly body: Buffer | Readable | undefined;
  /** The caller gone: the route sees its client leave. */
  readonly signal?: AbortSignal;
}

/** Statuses whose response has no body, whatever was written. */
const NO_BODY = new Set([204, 205, 304]);
/** Of the connection the route wrote to, not of the response handed back. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/**
 * A Node stream as a web stream, read as the reader asks. (Node 20's `Readable.toWeb` throws on
 * a chunk or an end that comes after the reader cancelled, and that throw ends the process.)
 */
function webStreamOf(readable: Readable): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      readable.on('data', (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) readable.pause();
      });
      readable.once('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      const fail = (error: Error): void => {
        if (settled) return;
        settled = true;
        controller.error(error);
      };
      readable.on('error', fail);
      readable.once('close', () => {
        fail(new Error('The response was cut off'));
      });
      readable.pause();
    },
    pull() {
      readable.resume();
    },
    cancel() {
      settled = true;
      readable.destroy();
    },
  });
}

/**
 * Serves `request` with this server's own routes and hooks, without a socket: the response comes
 * back as soon as its head is written and its body streams (SSE included), with backpressure.
 * The request's token tells the first hook what it was granted.
 */
export async function dispatchInProcess(
  fastify: FastifyInstance,
  grants: InProcessGrants,
  grant: InProcessGrant,
  request: InProcessRequest,
): Promise<Response> {
  const { token, handedOver, revoke } = grants.issue(grant);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers[IN_PROCESS_HEADER] = token;
  const leave = (): void => {
    handedOver.response?.destroy();
  };
  request.signal?.addEventListener('abort', leave, { once: true });
  try {
    const injected: LightMyRequestResponse = await fastify.inject({
      method: request.method.toUpperCase() as InjectOptions['method'],
      url: `${request.url.pathname}${request.url.search}`,
      headers,
      ...(request.body === undefined ? {} : { payload: request.body }),
      payloadAsStream: true,
    });
    const stream = injected.stream();
    const written = (injected.raw as { res: ServerResponse }).res;
    stream.once('close', () => {
      request.signal?.removeEventListener('abort', leave);
      // The reader gone before the end (the client left): the route sees its client leave.
      written.destroy();
    });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(injected.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      for (const one of Array.isArray(value) ? value : [value])
        responseHeaders.append(name, String(one));
    }
    const empty = NO_BODY.has(injected.statusCode) || request.method.toUpperCase() === 'HEAD';
    if (empty) stream.resume();
    return new Response(empty ? null : webStreamOf(stream), {
      status: injected.statusCode,
      statusText: injected.statusMessage,
      headers: responseHeaders,
    });
  } catch (error) {
    request.signal?.removeEventListener('abort', leave);
    throw error;
  } finally {
    revoke();
  }
}

/** A request's body, read whole, with the length headers left to match it. */
export async function bufferedBody(
  request: Request,
): Promise<{ headers: Headers; body: Buffer | undefined }> {
  const headers = new Headers(request.headers);
  if (request.body === null) return { headers, body: undefined };
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  return { headers, body: Buffer.from(await request.arrayBuffer()) };
}

/**
 * The fetch of `new Client()` without a URL (and of relative webhooks): a request to this server
 * in process, where it stands in for the API key. A path alone is taken as this server's.
 */
export function loopbackFetch(
  fastify: FastifyInstance,
  grants: InProcessGrants,
  serverUrl: string,
): InProcessFetch {
  return async (input, init) => {
    const target =
      typeof input === 'string' && input.startsWith('/') ? new URL(input, serverUrl) : input;
    const request = new Request(target, init);
    const { headers, body } = await bufferedBody(request);
    return dispatchInProcess(
      fastify,
      grants,
      { kind: 'loopback' },
      { method: request.method, url: new URL(request.url), headers, body, signal: request.signal },
    );
  };
}
