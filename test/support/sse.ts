export interface SseEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: unknown;
}

/** Parses an SSE body into records, stopping early (and cancelling the body) once `stopAfter` came. */
export async function readSse(
  response: Response,
  options: { stopAfter?: (event: SseEvent, count: number) => boolean } = {},
): Promise<SseEvent[]> {
  if (!response.body) throw new Error('no body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return events;
      buffer += value;
      let blank = buffer.indexOf('\n\n');
      while (blank !== -1) {
        const block = buffer.slice(0, blank);
        buffer = buffer.slice(blank + 2);
        blank = buffer.indexOf('\n\n');
        const event = parseBlock(block);
        if (!event) continue;
        events.push(event);
        if (options.stopAfter?.(event, events.length)) return events;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let event: string | undefined;
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  if (event === undefined) return undefined;
  return { id, event, data: data.length ? (JSON.parse(data.join('\n')) as unknown) : null };
}
