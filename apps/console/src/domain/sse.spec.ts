import { sseRecords, type SseRecord } from './sse';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]): Promise<SseRecord[]> {
  const records: SseRecord[] = [];
  for await (const record of sseRecords(streamOf(chunks))) records.push(record);
  return records;
}

describe('sseRecords', () => {
  it('parses records split anywhere across chunks, multi-line data joined', async () => {
    expect(
      await collect([
        'id: 1.0\nevent: log\nda',
        'ta: {"a":1}\n\n: heartbeat\n\nid: 1.1\r\n',
        'data: x\r\ndata: y\r\n\r\n',
      ]),
    ).toEqual([
      { id: '1.0', event: 'log', data: '{"a":1}' },
      { id: '1.1', event: 'message', data: 'x\ny' },
    ]);
  });

  it('keeps multi-byte characters split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: æøå\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    const records: SseRecord[] = [];
    for await (const record of sseRecords(stream)) records.push(record);
    expect(records).toEqual([{ event: 'message', data: 'æøå' }]);
  });
});
