import { sseConnectionsOpen } from '#libs/metrics';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '#libs/domain';
import { DRAIN_RETRY_AFTER_SECONDS, type HttpDrain } from './http-drain.js';

const logger = new Logger('sse');

export interface SseRecord {
  readonly id?: number | string;
  readonly event: string;
  readonly data: unknown;
}

export interface SseOptions {
  readonly headers: Readonly<Record<string, string>>;
  /** A comment line sent when nothing else was, so that proxies keep the connection open. */
  readonly heartbeatMs: number;
  /** Aborted when the client goes away, so the producer stops (and when the drain ends the stream). */
  readonly disconnect: AbortController;
  /**
   * The server's stop: when it begins, the stream sends `drainedEvent` (how to resume at `resumeAt`)
   * and ends cleanly.
   */
  readonly drain?: SseDrain;
}

export interface SseDrain {
  readonly drain: HttpDrain;
  /** Where the client resumes (a GET taking `Last-Event-ID`). */
  readonly resumeAt: string;
  /** The `Last-Event-ID` that resumes from the start, when no record was sent before the stop. */
  readonly fromStart?: string;
}

/** How a stream ended: its records are all sent, its client went away, or the server drains. */
export type SseEnd = 'finished' | 'client-left' | 'drained';

/**
 * The last event of a stream the server's stop ends: an `error` event (what the SDK yields, and
 * `useStream` shows, as a stream error) saying where to resume and after which event, with an SSE
 * `retry` (an `EventSource` reconnects by itself after it, with `Last-Event-ID`). It has no `id`:
 * the Last-Event-ID to resume with stays the last record's.
 */
export function drainedEvent(where: SseDrain, lastEventId: string | undefined): string {
  const resumeAt = where.resumeAt;
  const after =
    lastEventId !== undefined
      ? `Last-Event-ID: ${lastEventId}`
      : where.fromStart !== undefined
        ? `Last-Event-ID: ${where.fromStart} (no event was sent before the stop)`
        : 'no Last-Event-ID (no event was sent before the stop)';
  const message =
    'The server is shutting down: this stream ends here, what it follows goes on (a run in ' +
    `progress goes back to the queue). Resume with GET ${resumeAt} and ${after}.`;
  const data = {
    error: 'ServiceUnavailable',
    message,
    resume_at: resumeAt,
    last_event_id: lastEventId ?? null,
  };
  return `retry: ${DRAIN_RETRY_AFTER_SECONDS * 1000}\nevent: error\ndata: ${JSON.stringify(data)}\n\n`;
}

export function formatSseRecord(record: SseRecord): string {
  const id = record.id === undefined ? '' : `id: ${record.id}\n`;
  return `event: ${record.event}\ndata: ${JSON.stringify(record.data)}\n${id}\n`;
}

/** Waits until the socket takes more, or the client has gone. */
function writable(raw: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.once('drain', done);
    raw.once('close', done);
  });
}

/** Resolves once the response has gone out whole, or its connection is gone. */
function sent(raw: ServerResponse): Promise<void> {
  if (raw.writableFinished || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    raw.once('finish', resolve);
    raw.once('close', resolve);
  });
}

/**
 * Streams records as Server-Sent Events, writing to the socket with backpressure: the producer
 * is not asked for the next record until the socket has taken the previous one. With a drain,
 * the server's stop ends the stream with `drainedEvent` (the drain waits for it to go out).
 */
export async function sendSse(
  reply: FastifyReply,
  records: AsyncIterable<SseRecord>,
  options: SseOptions,
): Promise<SseEnd> {
  const streaming = streamSse(reply, records, options);
  options.drain?.drain.track(streaming.then(() => sent(reply.raw)));
  return streaming;
}

async function streamSse(
  reply: FastifyReply,
  records: AsyncIterable<SseRecord>,
  options: SseOptions,
): Promise<SseEnd> {
  // Headers set before the stream (by hooks: CORS) go out with it.
  const earlier = reply.getHeaders() as OutgoingHttpHeaders;
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...earlier,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...options.headers,
  });
  raw.flushHeaders();
  let left = false as boolean;
  const onClose = (): void => {
    left = true;
    options.disconnect.abort();
  };
  raw.on('close', onClose);
  let lastWrite = Date.now();
  const heartbeat = setInterval(() => {
    if (Date.now() - lastWrite >= options.heartbeatMs && !raw.writableEnded) {
      raw.write(': heartbeat\n\n');
      lastWrite = Date.now();
    }
  }, options.heartbeatMs);
  const drain = options.drain?.drain.signal;
  const drained = new Promise<'drained'>((resolve) => {
    if (drain?.aborted) resolve('drained');
    drain?.addEventListener(
      'abort',
      () => {
        resolve('drained');
      },
      { once: true },
    );
  });
  const iterator = records[Symbol.asyncIterator]();
  let lastId: string | undefined;
  let end: SseEnd = 'finished';
  sseConnectionsOpen.inc();
  try {
    for (;;) {
      if (options.disconnect.signal.aborted) break;
      const next = iterator.next();
      const first = await Promise.race([next, drained]);
      if (first === 'drained') {
        // The producer waits on the disconnect signal: it stops, and what it was reading is dropped.
        next.catch(() => undefined);
        end = 'drained';
        break;
      }
      if (first.done) break;
      const record = first.value;
      lastWrite = Date.now();
      if (record.id !== undefined) lastId = String(record.id);
      if (!raw.write(formatSseRecord(record))) {
        if ((await Promise.race([writable(raw), drained])) === 'drained') {
          end = 'drained';
          break;
        }
      }
    }
  } catch (error) {
    // The cause stays in the log: a database's or a library's message is not the client's.
    const message =
      error instanceof DomainError
        ? error.message
        : 'The stream was interrupted: resume it with the Last-Event-ID of the last event received';
    if (!(error instanceof DomainError)) {
      logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
    if (!raw.writableEnded)
      raw.write(formatSseRecord({ event: 'error', data: { error: 'StreamError', message } }));
  } finally {
    sseConnectionsOpen.dec();
    clearInterval(heartbeat);
    raw.off('close', onClose);
    if (left && end !== 'drained') end = 'client-left';
    if (end !== 'finished') {
      // Stops the producer; a client gone (or the drain) leaves it nothing to read for.
      options.disconnect.abort();
      void iterator.return?.().catch(() => undefined);
    }
    if (end === 'drained' && options.drain && !raw.writableEnded && !raw.destroyed) {
      raw.write(drainedEvent(options.drain, lastId));
    }
    if (!raw.writableEnded) raw.end();
  }
  return end;
}
