import { describe, expect, it } from '@jest/globals';
import { JsonPlusSerializer } from '@langchain/langgraph-checkpoint';
import type { EventStore, JsonObject, ReadStreamOptions, RecordedEvent } from '#libs/event-store';
import {
  CHECKPOINT_SAVED,
  CHECKPOINT_WRITES_SAVED,
  checkpointStreamOf,
  type CheckpointEvent,
  type CheckpointSavedData,
} from './checkpoint-events.js';
import {
  checkpointCacheBytesOf,
  checkpointEventBytes,
  checkpointEventHeapBytes,
} from './event-size.js';
import { encodeValue } from './stored-value.js';
import { ThreadCheckpointCache } from './thread-checkpoint-cache.js';

const KB = 1024;

/** Checkpoint streams in memory: only what the cache reads. Data goes through JSON, as in a store. */
class Streams {
  readonly streams = new Map<string, RecordedEvent[]>();
  reads = 0;

  add(threadId: string, type: string, data: object): void {
    const streamId = checkpointStreamOf(threadId);
    const stream = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, stream);
    const position = stream.length;
    stream.push({
      eventId: `${threadId}-${position}`,
      type,
      streamId,
      streamPosition: position,
      logPosition: { commit: BigInt(position), prepare: BigInt(position) },
      data: JSON.parse(JSON.stringify(data)) as JsonObject,
      metadata: {},
      recordedAt: new Date(),
    });
  }

  /** A thread of one checkpoint whose value is about `bytes` long as JSON. */
  thread(threadId: string, bytes: number): void {
    this.add(threadId, CHECKPOINT_SAVED, saved(`${threadId}-1`, 'x'.repeat(bytes)));
  }

  asStore(): EventStore {
    const store: Pick<EventStore, 'readStream'> = {
      readStream: (streamId: string, options: ReadStreamOptions = {}) => {
        this.reads += 1;
        const from = options.fromPosition ?? 0;
        const events = (this.streams.get(streamId) ?? []).filter((e) => e.streamPosition >= from);
        return Promise.resolve(events.slice(0, options.maxCount ?? events.length));
      },
    };
    return store as EventStore;
  }
}

function saved(checkpointId: string, blob: string): CheckpointSavedData {
  return {
    checkpoint_ns: '',
    checkpoint_id: checkpointId,
    parent_checkpoint_id: null,
    checkpoint: { type: 'json', value: { v: 4, id: checkpointId, channel_values: { blob } } },
    metadata: { type: 'json', value: { step: 1, source: 'loop' } },
  };
}

/** What `Streams.thread(id, bytes)` costs the cache. */
function threadCost(bytes: number): number {
  return checkpointEventHeapBytes({
    type: CHECKPOINT_SAVED,
    data: saved('t-1', 'x'.repeat(bytes)),
  });
}

async function readAll(cache: ThreadCheckpointCache, threadIds: readonly string[], budget: number) {
  for (const threadId of threadIds) {
    await cache.read(threadId);
    expect(cache.cachedBytes()).toBeLessThanOrEqual(budget);
  }
}

describe('ThreadCheckpointCache: its bound in bytes', () => {
  it('keeps what it holds at or under its budget, dropping the least recently used threads', async () => {
    const streams = new Streams();
    for (const threadId of ['a', 'b', 'c', 'd', 'e']) streams.thread(threadId, 100 * KB);
    const budget = 3.5 * threadCost(100 * KB);
    const cache = new ThreadCheckpointCache(streams.asStore(), { maxCachedBytes: budget });

    await readAll(cache, ['a', 'b', 'c'], budget);
    expect(cache.cachedThreadIds()).toEqual(['a', 'b', 'c']);
    // Each thread counts as what its event takes parsed (its 100 KB of JSON text and more).
    expect(cache.cachedBytes()).toBeGreaterThan(3 * threadCost(100 * KB));
    expect(threadCost(100 * KB)).toBeGreaterThan(200 * KB);

    await readAll(cache, ['a', 'd'], budget);
    expect(cache.cachedThreadIds()).toEqual(['c', 'a', 'd']);
    await readAll(cache, ['e'], budget);
    expect(cache.cachedThreadIds()).toEqual(['a', 'd', 'e']);

    // A thread read again after it was dropped is read from its start, and counted anew.
    const before = streams.reads;
    await readAll(cache, ['b'], budget);
    expect(streams.reads).toBe(before + 1);
    expect(cache.cachedThreadIds()).toEqual(['d', 'e', 'b']);
    expect((await cache.read('b')).latest('')?.id).toBe('b-1');
  });

  it('counts what a thread grows by, and drops others for it', async () => {
    const streams = new Streams();
    for (const threadId of ['a', 'b', 'c']) streams.thread(threadId, 100 * KB);
    const budget = 3.5 * threadCost(100 * KB);
    const cache = new ThreadCheckpointCache(streams.asStore(), { maxCachedBytes: budget });
    await readAll(cache, ['a', 'b', 'c'], budget);

    // 'a' grows by 100 KB: an event this process appended, then one another process did.
    const appended: CheckpointEvent = {
      type: CHECKPOINT_SAVED,
      data: saved('a-2', 'y'.repeat(100 * KB)),
    };
    streams.add('a', appended.type, appended.data);
    cache.recordAppended('a', 1, 'a-1', appended);
    expect(cache.cachedBytes()).toBeLessThanOrEqual(budget);
    expect(cache.cachedThreadIds()).toEqual(['c', 'a']);
    streams.add('a', CHECKPOINT_SAVED, saved('a-3', 'z'.repeat(100 * KB)));
    await readAll(cache, ['a'], budget);
    expect(cache.cachedThreadIds()).toEqual(['a']);
    expect((await cache.read('a')).latest('')?.id).toBe('a-3');
  });

  it('does not keep a thread larger than the whole budget, and keeps the others', async () => {
    const streams = new Streams();
    for (const threadId of ['a', 'b']) streams.thread(threadId, 100 * KB);
    streams.thread('huge', 500 * KB);
    const budget = 3.5 * threadCost(100 * KB);
    const cache = new ThreadCheckpointCache(streams.asStore(), { maxCachedBytes: budget });
    await readAll(cache, ['a', 'b'], budget);

    const huge = await cache.read('huge');
    expect(huge.latest('')?.id).toBe('huge-1');
    expect(cache.cachedThreadIds()).toEqual(['a', 'b']);
    expect(cache.cachedBytes()).toBeLessThanOrEqual(budget);
    // Each read of it reads it again.
    const before = streams.reads;
    await cache.read('huge');
    expect(streams.reads).toBe(before + 1);
  });

  it('keeps a held thread over the budget while it is held, and drops it when it is released', async () => {
    const streams = new Streams();
    for (const threadId of ['a', 'b']) streams.thread(threadId, 100 * KB);
    streams.thread('huge', 500 * KB);
    const budget = 3.5 * threadCost(100 * KB);
    const cache = new ThreadCheckpointCache(streams.asStore(), { maxCachedBytes: budget });
    await readAll(cache, ['a', 'b'], budget);

    await cache.exclusively('huge', async () => {
      await cache.read('huge');
      const reads = streams.reads;
      await cache.read('huge');
      // Held: read once, then from memory; the others made room for it.
      expect(streams.reads).toBe(reads);
      expect(cache.cachedThreadIds()).toEqual(['huge']);
    });
    expect(cache.cachedThreadIds()).toEqual([]);
    expect(cache.cachedBytes()).toBe(0);
  });

  it('keeps nothing but held threads with a budget of 0', async () => {
    const streams = new Streams();
    streams.thread('a', 10);
    const cache = new ThreadCheckpointCache(streams.asStore(), { maxCachedBytes: 0 });
    await cache.read('a');
    expect(cache.cachedThreadIds()).toEqual([]);
    await cache.exclusively('a', async () => {
      await cache.read('a');
      expect(cache.cachedThreadIds()).toEqual(['a']);
    });
    expect(cache.cachedBytes()).toBe(0);
  });

  it('takes its budget from BERTH_CHECKPOINT_CACHE_MB, else a sixteenth of the heap limit up to 64 MB', () => {
    const MB = 1024 * 1024;
    expect(checkpointCacheBytesOf({}, 4096 * MB)).toBe(64 * MB);
    // A runtime jail of 2 GiB: its heap limit is 1,344 MiB.
    expect(checkpointCacheBytesOf({}, 1344 * MB)).toBe(64 * MB);
    expect(checkpointCacheBytesOf({}, 512 * MB)).toBe(32 * MB);
    expect(checkpointCacheBytesOf({ BERTH_CHECKPOINT_CACHE_MB: '16' }, 4096 * MB)).toBe(16 * MB);
    expect(checkpointCacheBytesOf({ BERTH_CHECKPOINT_CACHE_MB: '0' })).toBe(0);
    expect(() => checkpointCacheBytesOf({ BERTH_CHECKPOINT_CACHE_MB: '1.5' })).toThrow(
      /BERTH_CHECKPOINT_CACHE_MB must be a whole number/,
    );
  });
});

describe('checkpointEventBytes', () => {
  const messages = Array.from({ length: 40 }, (_, i) => ({
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', i % 2 ? 'AIMessage' : 'HumanMessage'],
    kwargs: { content: `What is the weather in Oslo? (${i})`, id: `msg-${i}`, tokens: i * 31 },
  }));

  it('is about the JSON text of an event read from the log', () => {
    const data = saved('c-1', 'x');
    data.checkpoint = { type: 'json', value: { channel_values: { messages } } };
    const text = JSON.stringify(data).length;
    const estimate = checkpointEventBytes({ type: CHECKPOINT_SAVED, data });
    expect(estimate).toBeGreaterThan(text * 0.95);
    expect(estimate).toBeLessThan(text * 1.2);
  });

  it('counts a value this process serialized as the text it was serialized to', async () => {
    const serde = new JsonPlusSerializer();
    const value = await encodeValue(serde, { messages });
    const [, bytes] = await serde.dumpsTyped({ messages });
    const event: CheckpointEvent = {
      type: CHECKPOINT_WRITES_SAVED,
      data: {
        checkpoint_ns: '',
        checkpoint_id: 'c-1',
        task_id: 't',
        task_path: '',
        writes: [{ channel: 'messages', idx: 0, value }],
      },
    };
    const text = JSON.stringify(event.data).length;
    const estimate = checkpointEventBytes(event);
    expect(estimate - bytes.byteLength).toBeLessThan(300);
    expect(estimate).toBeGreaterThanOrEqual(text);
  });
});

describe('checkpointEventHeapBytes', () => {
  it('counts a checkpoint as its text parsed, and a delta also as the references folding adds', () => {
    const whole = saved('c-2', 'x'.repeat(10 * KB));
    const wholeCost = checkpointEventHeapBytes({ type: CHECKPOINT_SAVED, data: whole });
    expect(wholeCost).toBeGreaterThan(
      2 * checkpointEventBytes({ type: CHECKPOINT_SAVED, data: whole }),
    );

    const delta: CheckpointSavedData = {
      ...whole,
      extends: { checkpoint_id: 'c-1', prefixes: { messages: 1000, blob: 0 }, unchanged: [] },
    };
    const deltaCost = checkpointEventHeapBytes({ type: CHECKPOINT_SAVED, data: delta });
    // Folded, the 1,000 messages it extends are referenced again from its own list.
    expect(deltaCost - wholeCost).toBeGreaterThanOrEqual(1000 * 8);
  });
});
