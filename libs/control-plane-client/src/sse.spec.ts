import { readSse, type SseMessage } from './sse.js';

function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('readSse', () => {
  it('reads event, id and data across chunks; skips heartbeats; joins data lines', async () => {
    const messages: SseMessage[] = [];
    const body = bodyOf([
      'id: 7\nevent: log\nda',
      'ta: {"a":1}\n\n: heartbeat\n\n',
      'data: x\r\ndata: y\r\n\r\n',
    ]);
    for await (const message of readSse(body)) messages.push(message);
    expect(messages).toEqual([
      { id: '7', event: 'log', data: '{"a":1}' },
      { id: undefined, event: 'message', data: 'x\ny' },
    ]);
  });
});
