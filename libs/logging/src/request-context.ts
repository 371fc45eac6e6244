import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

interface RequestContext {
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** What a client may name its request: ids of tracing systems, not arbitrary text. */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's `x-request-id` when it is a plausible id, else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return given !== undefined && ACCEPTED_REQUEST_ID.test(given) ? given : randomUUID();
}

/** Runs `work`, and everything it starts, as part of the request `requestId`. */
export function runInRequest<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/** The id of the request the current code serves, if it serves one. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
