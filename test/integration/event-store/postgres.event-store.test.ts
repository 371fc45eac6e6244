import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import {
  DuplicateEventIdError,
  PostgresEventStore,
  WrongExpectedPositionError,
  type RecordedEvent,
} from '#libs/event-store';
import {
  anEvent,
  events,
  take,
} from '../../../libs/event-store/src/testing/event-store.contract.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

describe('PostgreSQL event store', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await createTestDatabase('pg_store');
    store = await PostgresEventStore.connect({ connectionString: database.url });
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('migrates once when several processes start together', async () => {
    const stores = await Promise.all(
      Array.from({ length: 4 }, () =>
        PostgresEventStore.connect({ connectionString: database.url }),
      ),
    );
    await Promise.all(stores.map((s) => s.close()));
    const client = new pg.Client(database.url);
    await client.connect();
    const { rows } = await client.query<{ version: number }>(
      'select version from es_migrations order by 1',
    );
    await client.end();
    expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('compresses large event data with lz4 where the server has it, with pglz where not', async () => {
    const client = new pg.Client(database.url);
    await client.connect();
    try {
      const lz4 = await client
        .query('create temp table lz4_probe (d jsonb compression lz4)')
        .then(() => true)
        .catch((error: unknown) => {
          if ((error as { code?: string }).code === '0A000') return false;
          throw error;
        });
      const stream = `large-${randomUUID()}`;
      const text = Array.from({ length: 4_000 }, (_, i) => `message ${i} of a long thread`).join(
        ' ',
      );
      await store.append(stream, [anEvent('Large', { text })]);
      const { rows } = await client.query<{ method: string }>(
        'select pg_column_compression(data) as method from es_events where stream_id = $1',
        [stream],
      );
      expect(rows).toEqual([{ method: lz4 ? 'lz4' : 'pglz' }]);
      expect((await store.readStream(stream))[0]?.data).toEqual({ text });
    } finally {
      await client.end();
    }
  });

  it('refuses an event id stored before by another append', async () => {
    const reused = anEvent();
    await store.append(`dup-${randomUUID()}`, [reused]);
    const otherStream = `dup-${randomUUID()}`;

    await expect(store.append(otherStream, [anEvent(), reused])).rejects.toBeInstanceOf(
      DuplicateEventIdError,
    );
    await expect(store.append(otherStream, [reused])).rejects.toBeInstanceOf(DuplicateEventIdError);
    expect(await store.readStream(otherStream)).toEqual([]);
  });

  describe('a stream subscription looking for some types', () => {
    /** The store, counting its reads of `stream`. */
    const counting = (stream: string) => {
      const reads = { count: 0 };
      const spy = Object.create(store) as PostgresEventStore;
      spy.readStream = (id, options) => {
        if (id === stream) reads.count += 1;
        return store.readStream(id, options);
      };
      return { spy, reads };
    };

    it("does not read this process's appends that hold none of them", async () => {
      const stream = `typed-${randomUUID()}`;
      await store.append(stream, [anEvent('Chunk')]);
      const { spy, reads } = counting(stream);
      const subscription = spy.subscribeToStream(stream, {
        afterPosition: 0,
        onlyTypes: new Set(['Wanted']),
      });
      const seen = take(subscription, 1, (event) => event.type === 'Wanted');
      for (let i = 0; i < 10; i += 1) await store.append(stream, events(2, 'Chunk'));
      await store.append(stream, [anEvent('Wanted')]);

      expect((await seen).map((event) => event.type)).toEqual(['Wanted']);
      // The first read, perhaps one racing the first append, and the one the wanted event woke.
      expect(reads.count).toBeLessThanOrEqual(3);
      await subscription.close();
    });

    it('reads an append of its own that does not directly follow what it has read', async () => {
      const stream = `typed-${randomUUID()}`;
      await store.append(stream, [anEvent('Chunk')]);
      const otherProcess = await PostgresEventStore.connect({ connectionString: database.url });
      try {
        const subscription = store.subscribeToStream(stream, {
          afterPosition: 0,
          onlyTypes: new Set(['Wanted']),
        });
        const seen = take(subscription, 1, (event) => event.type === 'Wanted');
        await otherProcess.append(stream, [anEvent('Wanted')]);
        await store.append(stream, [anEvent('Chunk')]);

        expect((await seen).map((event) => event.streamPosition)).toEqual([1]);
        await subscription.close();
      } finally {
        await otherProcess.close();
      }
    });
  });

  it('undoes the copy when the append beside it is refused, in one transaction', async () => {
    const source = `copy-src-${randomUUID()}`;
    const target = `copy-dst-${randomUUID()}`;
    const record = `copy-record-${randomUUID()}`;
    await store.append(source, events(3));
    await store.append(record, events(1));

    await expect(
      store.copyStreamAndAppend(source, target, record, events(1), {
        expectedPosition: 'no_stream',
      }),
    ).rejects.toBeInstanceOf(WrongExpectedPositionError);
    const reused = (await store.readStream(source))[0];
    await expect(
      store.copyStreamAndAppend(source, target, `copy-other-${randomUUID()}`, [
        { ...anEvent('Again'), eventId: reused?.eventId ?? '' },
      ]),
    ).rejects.toBeInstanceOf(DuplicateEventIdError);

    expect(await store.readStream(target)).toEqual([]);
    const copied = await store.copyStreamAndAppend(source, target, record, events(1), {
      expectedPosition: 0,
    });
    expect(copied.streamPosition).toBe(1);
    expect(await store.readStream(target)).toHaveLength(3);
  });

  it('leaves a log subscription asleep on appends of types it is not woken for, until asked to read', async () => {
    // No poll can come within the test: only a wake-up or readNow makes it read. A database of
    // its own, so that no other process's notice wakes it either.
    const own = await createTestDatabase('pg_store_quiet');
    const quiet = await PostgresEventStore.connect({
      connectionString: own.url,
      pollIntervalMs: 600_000,
    });
    const stream = `quiet-${randomUUID()}`;
    const before = await quiet.headPosition();
    const counted = await quiet.append(stream, [anEvent('Counted')]);
    const reads = jest.spyOn(quiet, 'readLog');
    const subscription = quiet.subscribeToLog({
      after: before,
      wakesFor: new Set(['Counted']),
    });
    try {
      const iterator = subscription[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toMatchObject({ type: 'Counted' });
      expect(counted.streamPosition).toBe(0);

      const pending = iterator.next();
      await new Promise((resolve) => setImmediate(resolve));
      await quiet.append(stream, [anEvent('Chunk')]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(reads).toHaveBeenCalledTimes(1);

      subscription.readNow?.();
      expect((await pending).value).toMatchObject({ type: 'Chunk' });
    } finally {
      await subscription.close();
      await quiet.close();
      await own.drop();
    }
  });

  it('undoes every append of appendAll when a later one is refused, in one transaction', async () => {
    const first = `all-a-${randomUUID()}`;
    const second = `all-b-${randomUUID()}`;
    const third = `all-c-${randomUUID()}`;
    await store.append(second, events(1));
    const reused = (await store.readStream(second))[0];

    await expect(
      store.appendAll([
        { streamId: first, events: events(2) },
        { streamId: second, events: events(1), expectedPosition: 'no_stream' },
      ]),
    ).rejects.toBeInstanceOf(WrongExpectedPositionError);
    await expect(
      store.appendAll([
        { streamId: first, events: events(2) },
        { streamId: third, events: [{ ...anEvent(), eventId: reused?.eventId ?? '' }] },
      ]),
    ).rejects.toBeInstanceOf(DuplicateEventIdError);
    await expect(
      store.appendAll([
        { streamId: third, events: events(1) },
        { streamId: first, events: events(1), expectedPosition: 0, expectedEventId: randomUUID() },
      ]),
    ).rejects.toBeInstanceOf(WrongExpectedPositionError);

    expect(await store.readStream(first)).toEqual([]);
    expect(await store.readStream(third)).toEqual([]);
    const [one, two] = await store.appendAll([
      { streamId: first, events: events(2) },
      { streamId: second, events: events(1), expectedPosition: 0 },
    ]);
    expect([one?.streamPosition, two?.streamPosition]).toEqual([1, 1]);
    expect(one?.logPosition.commit).toBe(two?.logPosition.commit);
  });

  it('commits appends asked at once in one transaction, each with its own outcome', async () => {
    const streams = Array.from({ length: 6 }, () => `group-${randomUUID()}`);
    const taken = `group-taken-${randomUUID()}`;
    await store.append(taken, [anEvent()]);
    const reused = anEvent();
    await store.append(`group-reused-${randomUUID()}`, [reused]);

    const [good, wrongPosition, duplicate, refused] = await Promise.all([
      Promise.allSettled(streams.map((stream) => store.append(stream, events(2)))),
      store
        .append(taken, [anEvent()], { expectedPosition: 'no_stream' })
        .catch((error: unknown) => error),
      store.append(`group-dup-${randomUUID()}`, [reused]).catch((error: unknown) => error),
      // PostgreSQL refuses a NUL in jsonb: that append fails, and it alone.
      store
        .append(`group-nul-${randomUUID()}`, [anEvent('Nul', { text: 'a\u0000b' })])
        .catch((error: unknown) => error),
    ]);

    const appended = good.map((outcome) => {
      if (outcome.status !== 'fulfilled') throw outcome.reason;
      return outcome.value;
    });
    expect(new Set(appended.map((result) => result.logPosition.commit)).size).toBe(1);
    for (const stream of streams) expect(await store.readStream(stream)).toHaveLength(2);
    expect(wrongPosition).toBeInstanceOf(WrongExpectedPositionError);
    expect(duplicate).toBeInstanceOf(DuplicateEventIdError);
    expect(refused).toBeInstanceOf(Error);
    expect(String(refused)).toMatch(/SQLSTATE/);
    expect(await store.readStream(taken)).toHaveLength(1);
  });

  it('keeps every character of appends committed together, whatever an array literal would escape', async () => {
    const awkward = [
      'quotes " and \' and backslashes \\ \\\\ \\"',
      '{braces}, commas, NULL, "NULL", (parens)',
      'é ß 漢字 🚀 \u2028 \t tab \n newline',
      'x'.repeat(200_000),
    ];
    const streams = awkward.map(() => `group-text-${randomUUID()}`);
    await Promise.all(
      streams.map((stream, index) =>
        store.append(stream, [anEvent('Awkward', { text: awkward[index] ?? '' })]),
      ),
    );
    const parts = streams.map((stream, index) => ({
      streamId: `${stream}-all`,
      events: [anEvent('Awkward', { text: awkward[index] ?? '' })],
    }));
    await store.appendAll(parts);

    for (const [index, stream] of streams.entries()) {
      for (const id of [stream, `${stream}-all`]) {
        const [event] = await store.readStream(id);
        expect(event?.data).toEqual({ text: awkward[index] });
      }
    }
  });

  it('never deadlocks two processes appending to the same streams in opposite orders', async () => {
    const other = await PostgresEventStore.connect({ connectionString: database.url });
    const streams = Array.from({ length: 8 }, () => `order-${randomUUID()}`);
    try {
      const rounds = Array.from({ length: 10 }, () =>
        Promise.all([
          ...streams.map((stream) => store.append(stream, [anEvent()])),
          ...[...streams].reverse().map((stream) => other.append(stream, [anEvent()])),
        ]),
      );
      await Promise.all(rounds);
      for (const stream of streams) expect(await store.readStream(stream)).toHaveLength(20);
    } finally {
      await other.close();
    }
  });

  it('reads the log with the data of the types a reader folds, leaving the rest in PostgreSQL', async () => {
    const start = await store.headPosition();
    const stream = `typed-${randomUUID()}`;
    await store.append(stream, [
      anEvent('Folded', { n: 1 }),
      anEvent('Ignored', { large: 'x'.repeat(10_000) }),
    ]);

    const read = (await store.readLog({ after: start, withDataOf: new Set(['Folded']) })).filter(
      (event) => event.streamId === stream,
    );

    expect(read.map((event) => [event.type, event.data])).toEqual([
      ['Folded', { n: 1 }],
      ['Ignored', {}],
    ]);
    const whole = (await store.readLog({ after: start })).filter((e) => e.streamId === stream);
    expect(whole[1]?.data).toEqual({ large: 'x'.repeat(10_000) });
  });

  it('gives a global-log reader every event exactly once while commits land out of order', async () => {
    const writers = 8;
    const appendsPerWriter = 25;
    const streams = Array.from({ length: writers }, () => `reorder-${randomUUID()}`);
    const start = await store.append(`reorder-start-${randomUUID()}`, [anEvent()]);
    const subscription = store.subscribeToLog({ after: start.logPosition });
    const ours = new Set(streams);
    const reading = take(
      subscription,
      writers * appendsPerWriter,
      (e) => ours.has(e.streamId),
      60_000,
    );

    await Promise.all(
      streams.map((stream) => appendWithDelayedCommits(database.url, stream, appendsPerWriter)),
    );
    const received = await reading;
    await subscription.close();

    expect(received).toHaveLength(writers * appendsPerWriter);
    expect(new Set(received.map((e) => e.eventId)).size).toBe(received.length);
    for (const stream of streams) {
      const positions = received.filter((e) => e.streamId === stream).map((e) => e.streamPosition);
      expect(positions).toEqual([...Array(appendsPerWriter).keys()]);
    }
    expect(isInLogOrder(received)).toBe(true);
  });

  it('wakes a subscriber in another process without waiting for its poll', async () => {
    const subscriberStore = await PostgresEventStore.connect({
      connectionString: database.url,
      pollIntervalMs: 60_000,
    });
    const stream = `cross-${randomUUID()}`;
    await store.append(stream, [anEvent()]);
    const subscription = subscriberStore.subscribeToStream(stream);
    try {
      const [first] = await take(subscription, 1);
      setTimeout(() => void store.append(stream, events(2)), 50);
      const live = await take(subscription, 2, () => true, 5_000);
      expect(first?.streamPosition).toBe(0);
      expect(live.map((e) => e.streamPosition)).toEqual([1, 2]);
    } finally {
      await subscription.close();
      await subscriberStore.close();
    }
  });

  it('sends no NOTIFY while no other process listens, and notifies again once one says hello', async () => {
    const alone = await createTestDatabase('pg_store_alone');
    const lonely = await PostgresEventStore.connect({
      connectionString: alone.url,
      listenerCensusMs: 20,
    });
    const watcher = new pg.Client(alone.url);
    await watcher.connect();
    const heard: string[] = [];
    watcher.on('notification', (message) => heard.push(message.payload ?? ''));
    await watcher.query('listen berth_es_appended');
    const stream = `alone-${randomUUID()}`;
    const everythingHeard = async (): Promise<string[]> => {
      const marker = `marker-${randomUUID()}`;
      await watcher.query('select pg_notify($1, $2)', ['berth_es_appended', marker]);
      await eventually(() => heard.includes(marker));
      return heard.splice(0).filter((payload) => payload !== marker);
    };
    try {
      await lonely.append(stream, [anEvent()]);
      await eventually(async () => {
        await lonely.append(stream, [anEvent()]);
        await new Promise((resolve) => setTimeout(resolve, 30));
        return (await everythingHeard()).length === 0;
      });

      await lonely.append(stream, events(5));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await everythingHeard()).toEqual([]);

      const other = await PostgresEventStore.connect({
        connectionString: alone.url,
        pollIntervalMs: 60_000,
      });
      try {
        const subscription = other.subscribeToStream(stream);
        const caughtUp = await lonely.readStream(stream);
        await take(subscription, caughtUp.length);
        await eventually(() => heard.some((payload) => payload.includes('"hello":true')));
        const live = take(subscription, 1, () => true, 5_000);
        await lonely.append(stream, [anEvent('Live')]);
        expect((await live).map((event) => event.type)).toEqual(['Live']);
        await subscription.close();
      } finally {
        await other.close();
      }
    } finally {
      await watcher.end();
      await lonely.close();
      await alone.drop();
    }
  });

  it('tells a newcomer of appends made while its arrival was not yet counted', async () => {
    const alone = await createTestDatabase('pg_store_newcomer');
    // It never subscribes, so it hears no hello: only its count, once a second, finds the newcomer.
    const writer = await PostgresEventStore.connect({
      connectionString: alone.url,
      listenerCensusMs: 1_000,
    });
    const stream = `newcomer-${randomUUID()}`;
    try {
      await writer.append(stream, [anEvent()]);
      const newcomer = await PostgresEventStore.connect({
        connectionString: alone.url,
        pollIntervalMs: 60_000,
      });
      try {
        const subscription = newcomer.subscribeToStream(stream);
        await take(subscription, 1);
        const live = take(subscription, 1, () => true, 5_000);
        await writer.append(stream, [anEvent('Live')]);
        expect((await live).map((event) => event.type)).toEqual(['Live']);
        await subscription.close();
      } finally {
        await newcomer.close();
      }
    } finally {
      await writer.close();
      await alone.drop();
    }
  });
});

/**
 * Appends through the store's own SQL function inside explicit transactions that stay open for a
 * random while, so that transactions which began later often commit first.
 */
async function appendWithDelayedCommits(url: string, stream: string, count: number): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    for (let i = 0; i < count; i += 1) {
      await client.query('begin');
      await client.query('select * from es_append($1, $2, $3)', [
        stream,
        i - 1,
        JSON.stringify([anEvent('Reordered', { i })]),
      ]);
      await client.query('select pg_sleep($1)', [Math.random() * 0.02]);
      await client.query('commit');
    }
  } finally {
    await client.end();
  }
}

/** Resolves once `check` holds, looking every 10 ms for at most 5 s. */
async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('The condition did not hold within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function isInLogOrder(received: RecordedEvent[]): boolean {
  return received.every((event, index) => {
    const previous = received[index - 1]?.logPosition;
    if (!previous) return true;
    const current = event.logPosition;
    return (
      current.commit > previous.commit ||
      (current.commit === previous.commit && current.prepare > previous.prepare)
    );
  });
}
