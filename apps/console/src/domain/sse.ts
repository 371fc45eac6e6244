export type SseRecord = { readonly id?: string; readonly event: string; readonly data: string };

/** Splits a text/event-stream into records (fields `id`, `event`, `data`; comments skipped). */
export async function* sseRecords(body: ReadableStream<Uint8Array>): AsyncGenerator<SseRecord> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, '');
        const record = parseBlock(block);
        if (record) yield record;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function parseBlock(block: string): SseRecord | undefined {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { ...(id === undefined ? {} : { id }), event, data: data.join('\n') };
}
