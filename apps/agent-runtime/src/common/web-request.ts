import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';

/** The request as a WHATWG `Request`, with its body (unread) when `withBody`. */
export function webRequestOf(request: FastifyRequest, withBody: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const hasBody = withBody && request.method !== 'GET' && request.method !== 'HEAD';
  return new Request(`http://${request.headers.host ?? 'localhost'}${request.url}`, {
    method: request.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(request.raw) as ReadableStream, duplex: 'half' } : {}),
  });
}
