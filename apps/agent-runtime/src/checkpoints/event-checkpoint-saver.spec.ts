import { describe, expect, it } from '@jest/globals';
import * as checkpointLibrary from '@langchain/langgraph-checkpoint';
import {
  BaseCheckpointSaver,
  emptyCheckpoint,
  uuid6,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
} from '@langchain/langgraph-checkpoint';
import {
  EventStore,
  WrongExpectedPositionError,
  type Appender,
  type AppendOptions,
  type AppendResult,
  type EventToAppend,
  type LogPosition,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type Subscription,
} from '#libs/event-store';
import { CHECKPOINT_SAVED, CHECKPOINT_WRITES_SAVED } from './checkpoint-events.js';
import {
  createEventCheckpointSaver,
  eventCheckpointSaverClass,
  type CheckpointLibrary,
} from './create-event-checkpoint-saver.js';
import { EventCheckpointSaver } from './event-checkpoint-saver.js';
import { ThreadCheckpointCache } from './thread-checkpoint-cache.js';

/**
 * Streams in memory; data goes through JSON as in a real store. `restartNumbering: false` numbers
 * a re-created stream on from where the deleted one stopped, as EventStoreDB does.
 */
class MemoryEventStore extends EventStore {
  readonly streams = new Map<string, RecordedEvent[]>();
  readonly reads: { streamId: string; fromPosition: number; returned: number }[] = [];
  /** The event types of each append, in order. */
  readonly appends: string[][] = [];
  private readonly nextPositions = new Map<string, number>();
  private global = 0n;

  constructor(private readonly restartNumbering = true) {
    super();
  }

  append(streamId: string, events: readonly EventToAppend[], options?: AppendOptions) {
    let position = this.nextPositions.get(streamId) ?? 0;
    const expected = options?.expectedPosition ?? 'any';
    const last = this.streams.has(streamId) ? position - 1 : -1;
    if (
      (typeof expected === 'number' && expected !== last) ||
      (expected === 'no_stream' && last !== -1)
    ) {
      return Promise.reject(new WrongExpectedPositionError(streamId, expected, last));
    }
    this.appends.push(events.map((event) => event.type));
    const stream = this.streams.get(streamId) ?? [];
    this.streams.set(streamId, stream);
    for (const event of events) {
      this.global += 1n;
      stream.push({
        eventId: event.eventId,
        type: event.type,
        streamId,
        streamPosition: position,
        logPosition: { commit: this.global, prepare: this.global },
        data: JSON.parse(JSON.stringify(event.data)) as RecordedEvent['data'],
        metadata: {},
        recordedAt: new Date(),
      });
      position += 1;
    }
    this.nextPositions.set(streamId, position);
    return Promise.resolve<AppendResult>({
      streamPosition: position - 1,
      logPosition: { commit: this.global, prepare: this.global },
    });
  }

  /** All or none: every expectation is checked before anything is appended. */
  override async appendAll(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    for (const { streamId, expectedPosition = 'any', expectedEventId } of appends) {
      const stream = this.streams.get(streamId) ?? [];
      const last = stream.at(-1);
      const at = last?.streamPosition ?? -1;
      const wrongPosition =
        (typeof expectedPosition === 'number' && expectedPosition !== at) ||
        (expectedPosition === 'no_stream' && last !== undefined);
      if (wrongPosition || (expectedEventId !== undefined && last?.eventId !== expectedEventId)) {
        throw new WrongExpectedPositionError(streamId, expectedPosition, at);
      }
    }
    const results: AppendResult[] = [];
    for (const { streamId, events } of appends) results.push(await this.append(streamId, events));
    return results;
  }

  readStream(streamId: string, options: ReadStreamOptions = {}) {
    const from = options.fromPosition ?? 0;
    const found = (this.streams.get(streamId) ?? [])
      .filter((e) => e.streamPosition >= from)
      .slice(0, options.maxCount ?? Infinity);
    this.reads.push({ streamId, fromPosition: from, returned: found.length });
    return Promise.resolve(found);
  }

  deleteStream(streamId: string) {
    this.streams.delete(streamId);
    if (this.restartNumbering) this.nextPositions.delete(streamId);
    return Promise.resolve();
  }

  headPosition(): Promise<LogPosition> {
    return Promise.resolve({ commit: this.global, prepare: this.global });
  }

  readLog(): Promise<RecordedEvent[]> {
    throw new Error('not used');
  }

  subscribeToStream(): Subscription {
    throw new Error('not used');
  }

  subscribeToLog(): Subscription {
    throw new Error('not used');
  }

  close() {
    return Promise.resolve();
  }
}

const config = (threadId: string, checkpointId?: string, ns = '') => ({
  configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId },
});

function checkpointAt(values: Record<string, unknown> = {}): Checkpoint {
  const checkpoint = emptyCheckpoint();
  checkpoint.id = uuid6(-1);
  checkpoint.channel_values = values;
  checkpoint.channel_versions = Object.fromEntries(Object.keys(values).map((k) => [k, 1]));
  return checkpoint;
}

function metadata(step: number, extra: Record<string, unknown> = {}): CheckpointMetadata {
  return { source: 'loop', step, parents: {}, ...extra };
}

/** Three checkpoints in a chain on `thread`, returning their ids. */
async function chain(saver: BaseCheckpointSaver, thread: string, steps = 3): Promise<string[]> {
  const ids: string[] = [];
  let parent: string | undefined;
  for (let step = 0; step < steps; step += 1) {
    const checkpoint = checkpointAt({ count: step });
    const saved = await saver.put(config(thread, parent), checkpoint, metadata(step), {});
    parent = saved.configurable?.['checkpoint_id'] as string;
    ids.push(parent);
  }
  return ids;
}

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const idsOf = (tuples: CheckpointTuple[]) =>
  tuples.map((t) => t.config.configurable?.['checkpoint_id'] as string);

describe('EventCheckpointSaver', () => {
  it('extends the BaseCheckpointSaver of the library it is given', () => {
    abstract class OtherCopy extends BaseCheckpointSaver {}
    const other: CheckpointLibrary = { BaseCheckpointSaver: OtherCopy };

    const saver = createEventCheckpointSaver(other, new MemoryEventStore());

    expect(saver).toBeInstanceOf(OtherCopy);
    expect(eventCheckpointSaverClass(other)).toBe(eventCheckpointSaverClass(other));
    expect(eventCheckpointSaverClass(checkpointLibrary)).toBe(EventCheckpointSaver);
    expect(new EventCheckpointSaver(new MemoryEventStore())).toBeInstanceOf(BaseCheckpointSaver);
    expect(JSON.stringify({ saver })).toBe('{"saver":"[EventCheckpointSaver]"}');
  });

  it('stores a checkpoint as a readable event and returns its config', async () => {
    const store = new MemoryEventStore();
    const saver = new EventCheckpointSaver(store);
    const checkpoint = checkpointAt({ topic: 'cats', bytes: new Uint8Array([1]) });

    const saved = await saver.put(config('t', 'parent-id'), checkpoint, metadata(1), {});

    expect(saved).toEqual(config('t', checkpoint.id));
    const [event] = store.streams.get('checkpoints-t') ?? [];
    expect(event?.type).toBe(CHECKPOINT_SAVED);
    expect(event?.data).toMatchObject({
      checkpoint_ns: '',
      checkpoint_id: checkpoint.id,
      parent_checkpoint_id: 'parent-id',
      checkpoint: {
        type: 'json',
        value: {
          id: checkpoint.id,
          channel_values: { topic: 'cats', bytes: { lc: 2, id: ['Uint8Array'] } },
        },
      },
      metadata: { type: 'json', value: { source: 'loop', step: 1, parents: {} } },
    });
  });

  it('gets the latest checkpoint, or the one asked for, with parent and pending writes', async () => {
    const saver = new EventCheckpointSaver(new MemoryEventStore());
    const [first, second, third] = await chain(saver, 't');
    await saver.putWrites(config('t', third), [['count', 5]], 'task-b', '~p, 1');
    await saver.putWrites(
      config('t', third),
      [
        ['count', 4],
        ['__interrupt__', [{ value: 'ask' }]],
      ],
      'task-a',
      '~p, 1',
    );

    const latest = await saver.getTuple({ configurable: { thread_id: 't' } });
    expect(latest).toEqual({
      config: config('t', third),
      checkpoint: expect.objectContaining({ id: third, channel_values: { count: 2 } }) as unknown,
      // The run's public config values (here the thread id) are kept with the checkpoint.
      metadata: metadata(2, { thread_id: 't' }),
      parentConfig: config('t', second),
      pendingWrites: [
        ['task-a', '__interrupt__', [{ value: 'ask' }]],
        ['task-a', 'count', 4],
        ['task-b', 'count', 5],
      ],
    });

    const asked = { configurable: { thread_id: 't', checkpoint_id: first, extra: 1 } };
    const older = await saver.getTuple(asked);
    expect(older?.config).toBe(asked);
    expect(older?.parentConfig).toBeUndefined();
    expect(older?.pendingWrites).toEqual([]);
    expect(await saver.getTuple(config('t', 'missing'))).toBeUndefined();
    expect(await saver.getTuple(config('other'))).toBeUndefined();
    expect(await saver.getTuple({ configurable: {} })).toBeUndefined();
    expect(await saver.get(config('t', second))).toMatchObject({ id: second });
  });

  it('keeps namespaces apart', async () => {
    const saver = new EventCheckpointSaver(new MemoryEventStore());
    const [root] = await chain(saver, 't', 1);
    const child = checkpointAt({ inner: true });
    await saver.put(config('t', undefined, 'sub:1'), child, metadata(0), {});

    expect((await saver.getTuple(config('t')))?.checkpoint.id).toBe(root);
    expect((await saver.getTuple(config('t', undefined, 'sub:1')))?.checkpoint.id).toBe(child.id);
    expect(idsOf(await all(saver.list({ configurable: { thread_id: 't' } })))).toEqual([
      child.id,
      root,
    ]);
    expect(idsOf(await all(saver.list(config('t'))))).toEqual([root]);
  });

  it('lists newest first with limit, before and a metadata filter', async () => {
    const saver = new EventCheckpointSaver(new MemoryEventStore());
    const ids = await chain(saver, 't', 5);
    const [a, b, c, d, e] = ids;
    await saver.put(
      config('t', e),
      checkpointAt(),
      metadata(5, { source: 'update', who: { n: 1 } }),
      {},
    );
    const latest = (await saver.getTuple(config('t')))?.checkpoint.id;

    expect(idsOf(await all(saver.list(config('t'))))).toEqual([latest, e, d, c, b, a]);
    expect(idsOf(await all(saver.list(config('t'), { limit: 2 })))).toEqual([latest, e]);
    expect(idsOf(await all(saver.list(config('t'), { before: config('t', d), limit: 2 })))).toEqual(
      [c, b],
    );
    expect(idsOf(await all(saver.list(config('t'), { filter: { step: 1 } })))).toEqual([b]);
    expect(
      idsOf(await all(saver.list(config('t'), { filter: { source: 'loop' }, limit: 1 }))),
    ).toEqual([e]);
    expect(idsOf(await all(saver.list(config('t'), { filter: { who: { n: 1 } } })))).toEqual([
      latest,
    ]);
    expect(idsOf(await all(saver.list(config('t', c))))).toEqual([c]);
    expect(await all(saver.list(config('t'), { limit: 0 }))).toEqual([]);
    await expect(all(saver.list({ configurable: {} }))).rejects.toThrow(/thread_id/);
  });

  it('stores special writes under their negative index, the last one winning', async () => {
    const store = new MemoryEventStore();
    const saver = new EventCheckpointSaver(store);
    const [id] = await chain(saver, 't', 1);

    await saver.putWrites(config('t', id), [['__error__', new Error('first')]], 'task');
    await saver.putWrites(config('t', id), [['__error__', new Error('second')]], 'task');
    await saver.putWrites(
      config('t', id),
      [
        ['a', 1],
        ['__resume__', 'yes'],
      ],
      'task',
    );
    await saver.putWrites(config('t', id), [['a', 2]], 'task');
    await saver.putWrites(config('t', id), [], 'task');

    const events = store.streams.get('checkpoints-t') ?? [];
    expect(events.map((e) => e.type)).toEqual([
      CHECKPOINT_SAVED,
      CHECKPOINT_WRITES_SAVED,
      CHECKPOINT_WRITES_SAVED,
      CHECKPOINT_WRITES_SAVED,
      CHECKPOINT_WRITES_SAVED,
    ]);
    expect(events[3]?.data['writes']).toEqual([
      { channel: 'a', idx: 0, value: { type: 'json', value: 1 } },
      { channel: '__resume__', idx: -4, value: { type: 'json', value: 'yes' } },
    ]);
    const tuple = await saver.getTuple(config('t'));
    expect(tuple?.pendingWrites).toEqual([
      ['task', '__resume__', 'yes'],
      ['task', '__error__', new Error('second')],
      ['task', 'a', 1],
    ]);
  });

  it('refuses puts and writes without a thread or checkpoint', async () => {
    const saver = new EventCheckpointSaver(new MemoryEventStore());

    await expect(saver.put({ configurable: {} }, checkpointAt(), metadata(0), {})).rejects.toThrow(
      /thread_id/,
    );
    await expect(saver.putWrites(config('t'), [['a', 1]], 'task')).rejects.toThrow(/checkpoint_id/);
    await expect(saver.getTuple({ configurable: { thread_id: 42 } })).rejects.toThrow(/string/);
  });

  it('deletes a thread and forgets it', async () => {
    const store = new MemoryEventStore();
    const saver = new EventCheckpointSaver(store);
    await chain(saver, 't');
    await chain(saver, 'kept', 1);

    await saver.deleteThread('t');

    expect(store.streams.has('checkpoints-t')).toBe(false);
    expect(await saver.getTuple(config('t'))).toBeUndefined();
    expect(await all(saver.list(config('t')))).toEqual([]);
    expect(await saver.getTuple(config('kept'))).toBeDefined();
  });

  it('returns pending sends of an old-format checkpoint from its parent writes', async () => {
    const saver = new EventCheckpointSaver(new MemoryEventStore());
    const [parent] = await chain(saver, 't', 1);
    await saver.putWrites(
      config('t', parent),
      [['__pregel_tasks', { node: 'n', args: { x: 1 } }]],
      'task',
    );
    const old = { ...checkpointAt({ count: 1 }), v: 1 };
    old.channel_versions = { count: 3, other: 7 };
    await saver.put(config('t', parent), old, metadata(1), {});

    const tuple = await saver.getTuple(config('t'));

    expect(tuple?.checkpoint.channel_values['__pregel_tasks']).toEqual([
      { node: 'n', args: { x: 1 } },
    ]);
    expect(tuple?.checkpoint.channel_versions['__pregel_tasks']).toBe(7);
  });

  it('walks the parent chain for delta channel history in one read', async () => {
    const store = new MemoryEventStore();
    const saver = new EventCheckpointSaver(store);
    const seed = checkpointAt({ log: ['seed'] });
    await saver.put(config('t'), seed, metadata(0), {});
    await saver.putWrites(config('t', seed.id), [['log', 'a']], 't1', '~p, 1');
    const middle = checkpointAt({});
    await saver.put(config('t', seed.id), middle, metadata(1), {});
    await saver.putWrites(config('t', middle.id), [['log', 'c']], 't2', '~p, 2');
    await saver.putWrites(config('t', middle.id), [['log', 'b']], 't1', '~p, 2');
    const target = checkpointAt({});
    await saver.put(config('t', middle.id), target, metadata(2), {});
    await saver.putWrites(config('t', target.id), [['log', 'pending']], 't3', '~p, 3');
    const readsBefore = store.reads.length;

    const history = await saver.getDeltaChannelHistory({
      config: config('t', target.id),
      channels: ['log', 'none'],
    });

    expect(history).toEqual({
      log: {
        seed: ['seed'],
        writes: [
          ['t1', 'log', 'a'],
          ['t1', 'log', 'b'],
          ['t2', 'log', 'c'],
        ],
      },
      none: { writes: [] },
    });
    expect(store.reads.length - readsBefore).toBe(1);
    expect(await saver.getDeltaChannelHistory({ config: config('t'), channels: [] })).toEqual({});
  });
});

describe('EventCheckpointStorage.owned (a run holding its thread)', () => {
  it('reads the thread once, and then from what it wrote', async () => {
    const store = new MemoryEventStore();
    const [first] = await chain(new EventCheckpointSaver(store), 't', 1);
    const saver = new EventCheckpointSaver(store);
    store.reads.length = 0;

    const next = checkpointAt({ by: 'the run' });
    const latest = await saver.storage.owned('t', async () => {
      expect((await saver.getTuple(config('t')))?.checkpoint.id).toBe(first);
      await saver.put(config('t', first), next, metadata(1), {});
      return saver.getTuple(config('t'));
    });

    expect(latest?.checkpoint.id).toBe(next.id);
    expect(store.reads).toEqual([{ streamId: 'checkpoints-t', fromPosition: 0, returned: 1 }]);
  });

  it('reads again when an append it did not make came between', async () => {
    const store = new MemoryEventStore();
    const [first] = await chain(new EventCheckpointSaver(store), 't', 1);
    const saver = new EventCheckpointSaver(store);
    const other = new EventCheckpointSaver(store);
    const theirs = checkpointAt({ by: 'someone else' });

    const latest = await saver.storage.owned('t', async () => {
      await saver.getTuple(config('t'));
      await other.put(config('t', first), theirs, metadata(1), {});
      await saver.put(config('t', theirs.id), checkpointAt({ by: 'the run' }), metadata(2), {});
      return saver.getTuple(config('t', theirs.id));
    });

    expect(latest?.checkpoint.id).toBe(theirs.id);
  });
});

describe('ThreadCheckpointCache', () => {
  it('reads only from the last position seen, and nothing new after its own appends', async () => {
    const store = new MemoryEventStore();
    const saver = new EventCheckpointSaver(store);
    await chain(saver, 't', 3);

    store.reads.length = 0;
    await saver.getTuple(config('t'));
    expect(store.reads).toEqual([{ streamId: 'checkpoints-t', fromPosition: 0, returned: 3 }]);

    const latest = (await saver.getTuple(config('t')))?.checkpoint.id;
    await saver.put(config('t', latest), checkpointAt(), metadata(3), {});
    await saver.putWrites(config('t', latest), [['x', 1]], 'task');
    store.reads.length = 0;
    await saver.getTuple(config('t'));

    expect(store.reads).toEqual([{ streamId: 'checkpoints-t', fromPosition: 4, returned: 1 }]);
  });

  it('queries a held thread once, and appends what it wrote in one commit when the hold ends', async () => {
    const store = new MemoryEventStore();
    const saver = new EventCheckpointSaver(store);
    const [first] = await chain(saver, 't', 1);
    const fresh = new EventCheckpointSaver(store);
    store.reads.length = 0;
    store.appends.length = 0;

    const next = checkpointAt({ by: 'me' });
    await fresh.storage.exclusively('t', async () => {
      expect((await fresh.getTuple(config('t')))?.checkpoint.id).toBe(first);
      await fresh.putWrites(config('t', first), [['x', 1]], 'task');
      await fresh.put(config('t', first), next, metadata(1), {});
      await fresh.putWrites(config('t', next.id), [['y', 2]], 'task');
      const latest = await fresh.getTuple(config('t'));
      expect(latest?.checkpoint.id).toBe(next.id);
      expect(latest?.pendingWrites).toEqual([['task', 'y', 2]]);
      expect(store.appends).toEqual([]);
    });

    expect(store.reads).toHaveLength(1);
    expect(store.appends).toEqual([
      ['CheckpointWritesSaved', 'CheckpointSaved', 'CheckpointWritesSaved'],
    ]);
    const other = new EventCheckpointSaver(store);
    expect((await other.getTuple(config('t')))?.pendingWrites).toEqual([['task', 'y', 2]]);
    expect(idsOf(await all(other.list(config('t'))))).toEqual([next.id, first]);
  });

  it("appends what a hold kept back with the caller's own append, both or neither", async () => {
    const store = new MemoryEventStore();
    const saver = new EventCheckpointSaver(store);
    const [first] = await chain(saver, 't', 1);
    await store.append('thread-t', [{ eventId: uuid6(-1), type: 'ThreadCreated', data: {} }]);
    store.appends.length = 0;
    const recordState = (append: Appender, expectedPosition: number) =>
      append('thread-t', [{ eventId: uuid6(-1), type: 'ThreadStateUpdated', data: {} }], {
        expectedPosition,
      });

    const refused = saver.storage.exclusively('t', async (hold) => {
      await saver.getTuple(config('t'));
      await saver.put(config('t', first), checkpointAt(), metadata(1), {});
      return hold.appendWith((append) => recordState(append, 5));
    });
    await expect(refused).rejects.toThrow(/thread-t is at position 0, expected 5/);
    expect(store.appends).toEqual([]);

    const recorded = await saver.storage.exclusively('t', async (hold) => {
      await saver.getTuple(config('t'));
      await saver.put(config('t', first), checkpointAt(), metadata(1), {});
      return hold.appendWith((append) => recordState(append, 0));
    });
    expect(recorded.streamPosition).toBe(1);
    expect(store.appends).toEqual([['CheckpointSaved'], ['ThreadStateUpdated']]);
    expect(await all(new EventCheckpointSaver(store).list(config('t')))).toHaveLength(2);
  });

  it('trusts a cached thread without a read, and does the work again on a read when another process wrote it', async () => {
    const store = new MemoryEventStore();
    const mine = new EventCheckpointSaver(store);
    const theirs = new EventCheckpointSaver(store);
    const [first] = await chain(mine, 't', 1);
    await mine.getTuple(config('t'));
    const later = checkpointAt({ by: 'them' });
    await theirs.put(config('t', first), later, metadata(1), {});
    store.reads.length = 0;
    store.appends.length = 0;

    const seen: (string | undefined)[] = [];
    const mineNext = checkpointAt({ by: 'me' });
    await mine.storage.exclusively('t', async () => {
      const latest = (await mine.getTuple(config('t')))?.checkpoint.id;
      seen.push(latest);
      await mine.put(config('t', latest), mineNext, metadata(2), {});
    });

    expect(seen).toEqual([first, later.id]);
    expect(store.reads).toEqual([{ streamId: 'checkpoints-t', fromPosition: 0, returned: 2 }]);
    expect(store.appends).toEqual([['CheckpointSaved']]);
    expect(idsOf(await all(theirs.list(config('t'))))).toEqual([mineNext.id, later.id, first]);
  });

  it('tells a thread deleted and written again to the same length from the one it cached', async () => {
    const store = new MemoryEventStore();
    const mine = new EventCheckpointSaver(store);
    const theirs = new EventCheckpointSaver(store);
    await chain(mine, 't', 2);
    await mine.getTuple(config('t'));
    await theirs.deleteThread('t');
    const [, again] = await chain(theirs, 't', 2);

    const seen: (string | undefined)[] = [];
    await mine.storage.exclusively('t', async () => {
      const latest = (await mine.getTuple(config('t')))?.checkpoint.id;
      seen.push(latest);
      await mine.put(config('t', latest), checkpointAt({ by: 'me' }), metadata(2), {});
    });

    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe(again);
    expect(idsOf(await all(theirs.list(config('t'))))).toHaveLength(3);
  });

  it('fails a hold it read, with nothing landed, when another writer appended meanwhile', async () => {
    const store = new MemoryEventStore();
    const mine = new EventCheckpointSaver(store);
    const theirs = new EventCheckpointSaver(store);
    const [first] = await chain(theirs, 't', 1);
    const later = checkpointAt({ by: 'them' });
    let attempts = 0;

    await expect(
      mine.storage.exclusively('t', async () => {
        attempts += 1;
        await mine.getTuple(config('t'));
        await theirs.put(config('t', first), later, metadata(1), {});
        await mine.put(config('t', first), checkpointAt({ by: 'me' }), metadata(1), {});
      }),
    ).rejects.toBeInstanceOf(WrongExpectedPositionError);

    expect(attempts).toBe(1);
    expect(idsOf(await all(mine.list(config('t'))))).toEqual([later.id, first]);
  });

  it('catches up with events another process appended', async () => {
    const store = new MemoryEventStore();
    const mine = new EventCheckpointSaver(store);
    const theirs = new EventCheckpointSaver(store);
    const [first] = await chain(mine, 't', 1);
    await mine.getTuple(config('t'));

    const later = checkpointAt({ by: 'them' });
    await theirs.put(config('t', first), later, metadata(1), {});
    store.reads.length = 0;

    expect((await mine.getTuple(config('t')))?.checkpoint.id).toBe(later.id);
    expect(store.reads).toEqual([{ streamId: 'checkpoints-t', fromPosition: 0, returned: 2 }]);
  });

  it.each([
    ['restarts its numbering (PostgreSQL)', true],
    ['continues its numbering (EventStoreDB)', false],
  ])(
    'reads a thread again when another process deleted and re-created it: a stream that %s',
    async (_label, restartNumbering) => {
      const store = new MemoryEventStore(restartNumbering);
      const mine = new EventCheckpointSaver(store);
      const theirs = new EventCheckpointSaver(store);
      await chain(mine, 't', 3);
      await mine.getTuple(config('t'));

      await theirs.deleteThread('t');
      expect(await mine.getTuple(config('t'))).toBeUndefined();
      await chain(mine, 't', 1);
      await theirs.deleteThread('t');
      const [only] = await chain(theirs, 't', 4);

      expect(idsOf(await all(mine.list(config('t'))))).toHaveLength(4);
      expect((await mine.getTuple(config('t', only)))?.checkpoint.channel_values).toEqual({
        count: 0,
      });
    },
  );

  it('reads a long stream in pages', async () => {
    const store = new MemoryEventStore();
    const saver = new EventCheckpointSaver(store, { readBatchSize: 2 });
    await chain(new EventCheckpointSaver(store), 't', 5);

    expect(idsOf(await all(saver.list(config('t'))))).toHaveLength(5);
    expect(store.reads.map((r) => [r.fromPosition, r.returned])).toEqual([
      [0, 2],
      [2, 2],
      [4, 1],
    ]);
  });

  it('drops the least recently used threads beyond its bounds', async () => {
    const store = new MemoryEventStore();
    const writer = new EventCheckpointSaver(store);
    for (const thread of ['a', 'b', 'c', 'd']) await chain(writer, thread, 2);

    const byThreads = new ThreadCheckpointCache(store, { maxCachedThreads: 2 });
    for (const thread of ['a', 'b', 'c', 'a']) await byThreads.read(thread);
    expect(byThreads.cachedThreadIds()).toEqual(['c', 'a']);
    // The bound by bytes: thread-checkpoint-cache.spec.ts.
  });
});
