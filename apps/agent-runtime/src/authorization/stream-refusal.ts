import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { refusalStatusOf, sendSse, type SseRecord } from '#libs/http';

/** The refusals an auth handler's answer makes: told in the stream rather than as a status. */
const REFUSED = new Set([401, 403, 404]);

/**
 * Answers a join the application's auth refused with 200 and one SSE `error` event saying the
 * status, as the JS server does (the SDK yields it as the stream's error). False, with nothing
 * sent, for any other error.
 */
export async function refusalInStream(reply: FastifyReply, error: unknown): Promise<boolean> {
  const status = refusalStatusOf(error);
  if (status === undefined || !REFUSED.has(status)) return false;
  const message = `${status}: ${(error as Error).message}`;
  const refusal: SseRecord = { event: 'error', data: { error: 'HTTPException', message } };
  await sendSse(reply, Readable.from([refusal]), {
    headers: {},
    heartbeatMs: 10_000,
    disconnect: new AbortController(),
  });
  return true;
}
