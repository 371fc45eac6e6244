import { createParser } from 'eventsource-parser';

export type SseRecord = { readonly id?: string; readonly event: string; readonly data: string };

/** Splits a text/event-stream into records (fields `id`, `event`, `data`; comments skipped). */
export async function* sseRecords(body: ReadableStream<Uint8Array>): AsyncGenerator<SseRecord> {
  const parsed: SseRecord[] = [];
  const parser = createParser({
    onEvent: ({ id, event = 'message', data }) => {
      parsed.push({ ...(id === undefined ? {} : { id }), event, data });
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      yield* parsed.splice(0);
    }
  } finally {
    reader.releaseLock();
  }
}
