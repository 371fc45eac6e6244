import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  foldCacheOf,
  handleCommand,
  PostgresEventStore,
  type Decider,
  type ReadStreamOptions,
} from '#libs/event-store';
import { conflict } from '#libs/domain';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

type CounterEvent = { readonly type: 'Added'; readonly data: { by: number; writer: number } };
type CounterCommand = { readonly add: number; readonly writer: number; readonly limit?: number };

const counter: Decider<{ total: number }, CounterCommand, CounterEvent> = {
  initialState: { total: 0 },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  decide: (command, state) => {
    if (command.limit !== undefined && state.total + command.add > command.limit) {
      throw conflict(`The total would pass ${command.limit}`);
    }
    if (command.add === 0) return [];
    return [{ type: 'Added', data: { by: command.add, writer: command.writer } }];
  },
};

describe('handleCommand on the PostgreSQL event store', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase('handle_command');
    store = await PostgresEventStore.connect({ connectionString: database.url });
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('lands every one of many concurrent commands on one stream, each decided on the state before it', async () => {
    const stream = `counter-${randomUUID()}`;
    const writers = 24;
    const outcomes = await Promise.all(
      Array.from({ length: writers }, (_, writer) =>
        handleCommand({
          store,
          streamId: stream,
          decider: counter,
          command: { add: 1, writer },
          metadata: { writer },
        }),
      ),
    );
    const stored = await store.readStream(stream);
    expect(stored.map((event) => event.streamPosition)).toEqual(
      Array.from({ length: writers }, (_, index) => index),
    );
    expect(new Set(stored.map((event) => event.data.writer)).size).toBe(writers);
    expect(outcomes.map((outcome) => outcome.state.total).sort((a, b) => a - b)).toEqual(
      Array.from({ length: writers }, (_, index) => index + 1),
    );
    expect(stored.every((event) => event.metadata.writer === event.data.writer)).toBe(true);
  });

  it('re-decides after losing a race, so a rule on the state holds under contention', async () => {
    const stream = `counter-${randomUUID()}`;
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, writer) =>
        handleCommand({
          store,
          streamId: stream,
          decider: counter,
          command: { add: 1, writer, limit: 3 },
        }),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(7);
    for (const result of refused) {
      expect(result.reason).toMatchObject({ code: 'conflict' });
    }
    expect(await store.readStream(stream)).toHaveLength(3);
  });

  it('appends nothing when the decision is no event', async () => {
    const stream = `counter-${randomUUID()}`;
    const outcome = await handleCommand({
      store,
      streamId: stream,
      decider: counter,
      command: { add: 0, writer: 0 },
    });
    expect(outcome).toMatchObject({ events: [], appended: undefined, state: { total: 0 } });
    expect(await store.readStream(stream)).toEqual([]);
  });

  describe('with a fold cache', () => {
    /** The store, counting the events each read of `stream` returns. */
    const counting = (stream: string) => {
      const read = { events: 0, queries: 0 };
      const readStream = store.readStream.bind(store);
      const spy = Object.create(store) as PostgresEventStore;
      spy.readStream = async (id: string, options?: ReadStreamOptions) => {
        const events = await readStream(id, options);
        if (id === stream) {
          read.events += events.length;
          read.queries += 1;
        }
        return events;
      };
      return { spy, read };
    };

    it('decides on the same state as a whole read, reading only what is new', async () => {
      const stream = `cached-${randomUUID()}`;
      const { spy, read } = counting(stream);
      const cache = foldCacheOf(counter);
      for (let writer = 0; writer < 20; writer += 1) {
        await handleCommand({
          store: spy,
          streamId: stream,
          decider: counter,
          command: { add: 1, writer },
          cache: cache,
        });
      }
      // Another process appends past what the cache folded; the next command catches up.
      await handleCommand({
        store,
        streamId: stream,
        decider: counter,
        command: { add: 5, writer: 99 },
      });
      read.events = 0;

      const outcome = await handleCommand({
        store: spy,
        streamId: stream,
        decider: counter,
        command: { add: 1, writer: 100, limit: 26 },
        cache: cache,
      });

      expect(outcome.state.total).toBe(26);
      expect(read.events).toBe(2);
      await expect(
        handleCommand({
          store: spy,
          streamId: stream,
          decider: counter,
          command: { add: 1, writer: 101, limit: 26 },
          cache: cache,
        }),
      ).rejects.toMatchObject({ code: 'conflict' });
    });

    it('decides on what an optimistic cache kept without reading, and reads once another writer was there', async () => {
      const stream = `optimistic-${randomUUID()}`;
      const { spy, read } = counting(stream);
      const cache = foldCacheOf(counter, 10, true);
      await handleCommand({
        store: spy,
        streamId: stream,
        decider: counter,
        command: { add: 1, writer: 0 },
        cache: cache,
      });
      read.events = 0;
      for (let writer = 1; writer < 10; writer += 1) {
        await handleCommand({
          store: spy,
          streamId: stream,
          decider: counter,
          command: { add: 1, writer },
          cache: cache,
        });
      }
      expect(read.events).toBe(0);

      await handleCommand({
        store,
        streamId: stream,
        decider: counter,
        command: { add: 5, writer: 99 },
      });
      const outcome = await handleCommand({
        store: spy,
        streamId: stream,
        decider: counter,
        command: { add: 1, writer: 100, limit: 16 },
        cache: cache,
      });

      expect(outcome.state.total).toBe(16);
      expect(read.events).toBeGreaterThan(0);
      expect((await store.readStream(stream)).map((event) => event.data.writer)).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 99, 100,
      ]);
    });

    it('begins a stream it was told is new without reading, and reads once it was there after all', async () => {
      const fresh = `begun-${randomUUID()}`;
      const { spy, read } = counting(fresh);
      const cache = foldCacheOf(counter, 10, true);
      cache.begin(fresh);
      await handleCommand({
        store: spy,
        streamId: fresh,
        decider: counter,
        command: { add: 1, writer: 0 },
        cache: cache,
      });
      expect(read.queries).toBe(0);

      const taken = `begun-${randomUUID()}`;
      const other = counting(taken);
      await handleCommand({
        store,
        streamId: taken,
        decider: counter,
        command: { add: 5, writer: 99 },
      });
      cache.begin(taken);
      const outcome = await handleCommand({
        store: other.spy,
        streamId: taken,
        decider: counter,
        command: { add: 1, writer: 1 },
        cache: cache,
      });
      expect(outcome.state.total).toBe(6);
      expect(other.read.queries).toBeGreaterThan(0);
      expect((await store.readStream(taken)).map((event) => event.data.writer)).toEqual([99, 1]);
    });

    it('folds again from the start a stream that was deleted and begun again', async () => {
      const stream = `cached-${randomUUID()}`;
      const cache = foldCacheOf(counter);
      for (let writer = 0; writer < 3; writer += 1) {
        await handleCommand({
          store,
          streamId: stream,
          decider: counter,
          command: { add: 10, writer },
          cache: cache,
        });
      }
      await store.deleteStream(stream);
      await handleCommand({
        store,
        streamId: stream,
        decider: counter,
        command: { add: 1, writer: 7 },
      });
      await handleCommand({
        store,
        streamId: stream,
        decider: counter,
        command: { add: 1, writer: 8 },
      });
      await handleCommand({
        store,
        streamId: stream,
        decider: counter,
        command: { add: 1, writer: 9 },
      });

      const outcome = await handleCommand({
        store,
        streamId: stream,
        decider: counter,
        command: { add: 1, writer: 10 },
        cache: cache,
      });

      expect(outcome.state.total).toBe(4);
    });
  });
});
