export interface SseMessage {
  readonly event: string;
  readonly data: string;
  readonly id: string | undefined;
}

/**
 * Server-sent events from a response body, one message per blank-line-separated block:
 * `event` (default "message"), `id` and the `data` lines joined with newlines. Comments
 * (heartbeats) are skipped. Stops when the body ends; cancels the body when the caller stops.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, '\n');
      let blank = buffer.indexOf('\n\n');
      while (blank !== -1) {
        const message = parseSseBlock(buffer.slice(0, blank));
        buffer = buffer.slice(blank + 2);
        blank = buffer.indexOf('\n\n');
        if (message) yield message;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** One SSE block; undefined when it holds no data (a comment or a heartbeat). */
export function parseSseBlock(block: string): SseMessage | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? undefined : { event, data: data.join('\n'), id };
}
