import { describe, expect, it } from '@jest/globals';
import { tallyEvents, threadStorageOf } from './thread-storage.js';

const textLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

const saved = (channelValues: Record<string, unknown>) => ({
  type: 'CheckpointSaved',
  data: {
    checkpoint_ns: '',
    checkpoint_id: 'c1',
    parent_checkpoint_id: null,
    checkpoint: { type: 'json', value: { v: 4, channel_values: channelValues } },
    metadata: { type: 'json', value: { step: 0 } },
  },
});

const writes = {
  type: 'CheckpointWritesSaved',
  data: {
    checkpoint_ns: '',
    checkpoint_id: 'c1',
    task_id: 't',
    task_path: '',
    writes: [
      { channel: 'text', idx: 0, value: { type: 'json', value: 'hi' } },
      { channel: 'n', idx: 1, value: { type: 'json', value: 1 } },
    ],
  },
};

describe('the storage of a thread', () => {
  it('counts each channel value once, under channel_values, the sections adding up to the stream', () => {
    const first = saved({ text: 'hello', n: 1 });
    const second = saved({ text: 'hello, world' });
    const events = [first, second, writes];
    const storage = threadStorageOf('t-1', tallyEvents(events, textLength));
    const streamBytes = events.reduce((sum, event) => sum + textLength(event.data), 0);

    expect(storage.total_bytes).toBe(streamBytes);
    expect(storage.channel_values).toEqual({
      rows: 3,
      bytes: textLength('hello') + textLength(1) + textLength('hello, world'),
      by_channel: {
        n: { rows: 1, bytes: textLength(1) },
        text: { rows: 2, bytes: textLength('hello') + textLength('hello, world') },
      },
    });
    expect(storage.checkpoints).toEqual({
      rows: 2,
      bytes: textLength(first.data) + textLength(second.data) - storage.channel_values.bytes,
    });
    expect(storage.pending_writes).toEqual({ rows: 2, bytes: textLength(writes.data) });
  });

  it('leaves the values of a checkpoint kept as base64 in its checkpoint', () => {
    const opaque = {
      type: 'CheckpointSaved',
      data: {
        checkpoint: { type: 'msgpack', base64: 'AAEC' },
        metadata: { type: 'json', value: {} },
      },
    };
    const storage = threadStorageOf('t-2', tallyEvents([opaque], textLength));
    expect(storage.channel_values).toEqual({ rows: 0, bytes: 0, by_channel: {} });
    expect(storage.checkpoints).toEqual({ rows: 1, bytes: textLength(opaque.data) });
  });

  it('counts a metadata patch with the checkpoints, as bytes and not as a checkpoint', () => {
    const patch = { type: 'CheckpointMetadataPatched', data: { metadata: { a: 1 } } };
    const storage = threadStorageOf('t-3', tallyEvents([patch], textLength));
    expect(storage.checkpoints).toEqual({ rows: 0, bytes: textLength(patch.data) });
    expect(storage.total_bytes).toBe(textLength(patch.data));
  });
});
