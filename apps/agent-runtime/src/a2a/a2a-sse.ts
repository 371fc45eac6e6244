import type { ServerResponse } from 'node:http';
import { formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from '@a2a-js/sdk';

interface JsonRpcAnswer {
  readonly jsonrpc: string;
  readonly id: string | number | null;
}

/**
 * Writes the SDK's stream of JSON-RPC answers as SSE, as its Express handler does: each a `data:`
 * event, a failure midway an `error` event; writes wait for the socket to drain, and a client
 * that goes away ends the stream.
 */
export async function writeSseAnswers(
  raw: ServerResponse,
  headers: Record<string, string>,
  answers: AsyncGenerator<JsonRpcAnswer, void, undefined>,
  errorOf: (error: unknown) => unknown,
  requestId: string | number | null,
): Promise<void> {
  raw.writeHead(200, { ...headers, ...SSE_HEADERS });
  const gone = (): void => void answers.return(undefined);
  raw.once('close', gone);
  try {
    for await (const answer of answers) {
      if (raw.destroyed) break;
      if (!raw.write(formatSSEEvent(answer))) await drained(raw);
    }
  } catch (error) {
    if (!raw.destroyed) {
      raw.write(formatSSEErrorEvent({ jsonrpc: '2.0', id: requestId, error: errorOf(error) }));
    }
  } finally {
    raw.off('close', gone);
    if (!raw.writableEnded) raw.end();
  }
}

/** Resolves once the socket takes writes again, or is gone. */
function drained(raw: ServerResponse): Promise<void> {
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
