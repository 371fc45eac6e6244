import { sseConnectionsOpen } from '#libs/metrics';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '#libs/domain';

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
  /** Aborted when the client goes away, so the producer stops. */
  readonly disconnect: AbortController;
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

/**
 * Streams records as Server-Sent Events, writing to the socket with backpressure: the producer
 * is not asked for the next record until the socket has taken the previous one.
 */
export async function sendSse(
  reply: FastifyReply,
  records: AsyncIterable<SseRecord>,
  options: SseOptions,
): Promise<void> {
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
  const onClose = (): void => {
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
  sseConnectionsOpen.inc();
  try {
    for await (const record of records) {
      if (options.disconnect.signal.aborted) break;
      lastWrite = Date.now();
      if (!raw.write(formatSseRecord(record))) await writable(raw);
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
    if (!raw.writableEnded) raw.end();
  }
}
