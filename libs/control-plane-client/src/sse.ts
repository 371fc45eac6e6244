import { EventSourceParserStream } from 'eventsource-parser/stream';

export interface SseMessage {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

/**
 * Server-sent events from a response body, as the EventSource standard reads them: `event`
 * (default "message"), `id` and the `data` lines joined with newlines; comments (heartbeats)
 * skipped. Stops when the body ends; cancels the body when the caller stops.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield { event: value.event ?? 'message', data: value.data, id: value.id };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
