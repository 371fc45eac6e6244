import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WrongExpectedPositionError } from '../event-store.errors.js';
import type {
  EventStore,
  EventToAppend,
  RecordedEvent,
  Subscription,
} from '../event-store.port.js';

export function anEvent(
  type = 'Happened',
  data: Record<string, number | string> = {},
): EventToAppend {
  return { eventId: randomUUID(), type, data, metadata: { source: 'contract' } };
}

export function events(count: number, type = 'Happened'): EventToAppend[] {
  return Array.from({ length: count }, (_, index) => anEvent(type, { index }));
}

/** Pulls events until `count` have arrived or the time runs out (then fails with what came). */
export async function take(
  subscription: Subscription,
  count: number,
  keep: (event: RecordedEvent) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<RecordedEvent[]> {
  const received: RecordedEvent[] = [];
  const iterator = subscription[Symbol.asyncIterator]();
  const deadline = Date.now() + timeoutMs;
  while (received.length < count) {
    const remaining = deadline - Date.now();
    const next = await Promise.race([
      iterator.next(),
      new Promise<'timeout'>((resolve) =>
        setTimeout(() => {
          resolve('timeout');
        }, remaining).unref(),
      ),
    ]);
    if (next === 'timeout') {
      throw new Error(`Received ${received.length} of ${count} events before the time ran out`);
    }
    if (next.done) break;
    if (keep(next.value)) received.push(next.value);
  }
  return received;
}

function streamName(): string {
  return `contract-${randomUUID()}`;
}

/** The behaviour every event store adapter must have. */
export function eventStoreContract(connect: () => Promise<EventStore>): void {
  let store: EventStore;

  beforeAll(async () => {
    store = await connect();
  });

  afterAll(async () => {
    await store.close();
  });

  describe('append and read a stream', () => {
    it('stores events in order, numbered from 0, with their data and metadata', async () => {
      const stream = streamName();
      const appended = events(3);
      const result = await store.append(stream, appended, { expectedPosition: 'no_stream' });

      expect(result.streamPosition).toBe(2);
      const read = await store.readStream(stream);
      expect(read.map((e) => [e.eventId, e.type, e.streamPosition, e.data, e.metadata])).toEqual(
        appended.map((e, index) => [e.eventId, e.type, index, e.data, e.metadata]),
      );
      expect(read.every((e) => e.streamId === stream && e.recordedAt instanceof Date)).toBe(true);
      expect(read.at(-1)?.logPosition).toEqual(result.logPosition);
    });

    it('appends at an exact expected position and refuses a stale one', async () => {
      const stream = streamName();
      await store.append(stream, events(2), { expectedPosition: 'no_stream' });
      await store.append(stream, events(1), { expectedPosition: 1 });

      const stale = store.append(stream, events(1), { expectedPosition: 1 });
      await expect(stale).rejects.toBeInstanceOf(WrongExpectedPositionError);
      await expect(stale).rejects.toMatchObject({ streamId: stream, expected: 1, actual: 2 });
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    it('checks no_stream, stream_exists and any', async () => {
      const stream = streamName();
      await expect(
        store.append(stream, events(1), { expectedPosition: 'stream_exists' }),
      ).rejects.toMatchObject({ actual: -1 });
      await store.append(stream, events(1), { expectedPosition: 'no_stream' });
      await expect(
        store.append(stream, events(1), { expectedPosition: 'no_stream' }),
      ).rejects.toBeInstanceOf(WrongExpectedPositionError);
      await store.append(stream, events(1), { expectedPosition: 'stream_exists' });
      const result = await store.append(stream, events(1), { expectedPosition: 'any' });
      expect(result.streamPosition).toBe(2);
    });

    it('stores a retried append once', async () => {
      const stream = streamName();
      const batch = events(3);
      const first = await store.append(stream, batch, { expectedPosition: 'no_stream' });
      const retry = await store.append(stream, batch, { expectedPosition: 'no_stream' });

      expect(retry.streamPosition).toBe(first.streamPosition);
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    it('reads forwards and backwards from a position, bounded by a count', async () => {
      const stream = streamName();
      await store.append(stream, events(10));

      const forwards = await store.readStream(stream, { fromPosition: 4, maxCount: 3 });
      expect(forwards.map((e) => e.streamPosition)).toEqual([4, 5, 6]);
      const backwards = await store.readStream(stream, { direction: 'backwards', maxCount: 2 });
      expect(backwards.map((e) => e.streamPosition)).toEqual([9, 8]);
      const backwardsFrom = await store.readStream(stream, {
        direction: 'backwards',
        fromPosition: 3,
      });
      expect(backwardsFrom.map((e) => e.streamPosition)).toEqual([3, 2, 1, 0]);
    });

    it('reads nothing from a stream that does not exist', async () => {
      expect(await store.readStream(streamName())).toEqual([]);
    });

    it('forgets a deleted stream', async () => {
      const stream = streamName();
      await store.append(stream, events(2));
      await store.deleteStream(stream);
      expect(await store.readStream(stream)).toEqual([]);
    });

    it('copies a stream to a new one, event by event with ids of its own', async () => {
      const source = `copy-src-${randomUUID()}`;
      const target = `copy-dst-${randomUUID()}`;
      const written = events(3, 'Copied');
      await store.append(source, written);

      const copied = await store.copyStream(source, target);

      const stored = await store.readStream(target);
      expect(copied?.streamPosition).toBe(2);
      expect(stored.map((event) => [event.streamPosition, event.type, event.data])).toEqual(
        written.map((event, index) => [index, event.type, event.data]),
      );
      expect(stored.some((event) => written.some((w) => w.eventId === event.eventId))).toBe(false);
      await expect(store.copyStream(source, target)).rejects.toBeInstanceOf(
        WrongExpectedPositionError,
      );
      expect(await store.copyStream(`copy-none-${randomUUID()}`, `copy-x-${randomUUID()}`)).toBe(
        undefined,
      );
    });

    it('copies a stream and appends what the copy is for, or neither when the target exists', async () => {
      const source = `copy-src-${randomUUID()}`;
      const target = `copy-dst-${randomUUID()}`;
      const record = `copy-record-${randomUUID()}`;
      await store.append(source, events(2, 'Copied'));
      const said = events(1, 'CopyMade');

      const appended = await store.copyStreamAndAppend(source, target, record, said, {
        expectedPosition: 'no_stream',
      });

      expect(appended.streamPosition).toBe(0);
      expect((await store.readStream(target)).map((event) => event.type)).toEqual([
        'Copied',
        'Copied',
      ]);
      expect((await store.readStream(record)).map((event) => event.eventId)).toEqual(
        said.map((event) => event.eventId),
      );
      const again = `copy-record-${randomUUID()}`;
      await expect(
        store.copyStreamAndAppend(source, target, again, events(1, 'CopyMade')),
      ).rejects.toBeInstanceOf(WrongExpectedPositionError);
      expect(await store.readStream(again)).toEqual([]);
    });
  });

  describe('appending to several streams', () => {
    it('appends to each, in the order given, with the results of each', async () => {
      const first = `all-a-${randomUUID()}`;
      const second = `all-b-${randomUUID()}`;
      await store.append(first, events(2));

      const results = await store.appendAll([
        { streamId: first, events: events(1, 'More'), expectedPosition: 1 },
        { streamId: second, events: events(2, 'New'), expectedPosition: 'no_stream' },
      ]);

      expect(results.map((result) => result.streamPosition)).toEqual([2, 1]);
      expect((await store.readStream(first)).map((event) => event.type)).toEqual([
        'Happened',
        'Happened',
        'More',
      ]);
      expect(await store.readStream(second)).toHaveLength(2);
    });

    it('appends nothing after a refusal, and refuses when the event at the expected position is another', async () => {
      const first = `all-a-${randomUUID()}`;
      const second = `all-b-${randomUUID()}`;
      const [head] = events(1);
      if (!head) throw new Error('no event');
      await store.append(first, [head]);

      await expect(
        store.appendAll([
          { streamId: first, events: events(1), expectedPosition: 5 },
          { streamId: second, events: events(1) },
        ]),
      ).rejects.toBeInstanceOf(WrongExpectedPositionError);
      await expect(
        store.appendAll([
          {
            streamId: first,
            events: events(1),
            expectedPosition: 0,
            expectedEventId: randomUUID(),
          },
          { streamId: second, events: events(1) },
        ]),
      ).rejects.toBeInstanceOf(WrongExpectedPositionError);
      expect(await store.readStream(second)).toEqual([]);

      await store.appendAll([
        { streamId: first, events: events(1), expectedPosition: 0, expectedEventId: head.eventId },
      ]);
      expect(await store.readStream(first)).toHaveLength(2);
    });
  });

  describe('concurrent writers', () => {
    it('lets exactly one of 8 racing writers win each position', async () => {
      const stream = streamName();
      const rounds = 10;
      for (let position = -1; position < rounds - 1; position += 1) {
        const expectedPosition = position === -1 ? 'no_stream' : position;
        const outcomes = await Promise.allSettled(
          Array.from({ length: 8 }, () => store.append(stream, [anEvent()], { expectedPosition })),
        );
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o) => o.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(7);
        for (const loss of lost) expect(loss.reason).toBeInstanceOf(WrongExpectedPositionError);
      }
      const stored = await store.readStream(stream);
      expect(stored.map((e) => e.streamPosition)).toEqual([...Array(rounds).keys()]);
      expect(new Set(stored.map((e) => e.eventId)).size).toBe(rounds);
    });
  });

  describe('the global log', () => {
    it('reads every appended event after a position, in an order consistent with each stream', async () => {
      const [a, b] = [streamName(), streamName()];
      const start = await store.append(streamName(), [anEvent()]);
      await store.append(a, events(2));
      await store.append(b, events(2));
      await store.append(a, events(1));

      const ours = await readLogUntil(
        store,
        start.logPosition,
        (e) => [a, b].includes(e.streamId),
        5,
      );
      expect(ours.map((e) => `${e.streamId === a ? 'a' : 'b'}${e.streamPosition}`)).toEqual([
        'a0',
        'a1',
        'b0',
        'b1',
        'a2',
      ]);
    });
  });

  describe('the head of the log', () => {
    it('is the position of the newest committed event', async () => {
      await store.append(streamName(), events(2));
      const last = await store.append(streamName(), events(1));
      expect(await store.headPosition()).toEqual(last.logPosition);
    });
  });

  describe('subscriptions', () => {
    it('delivers a stream from a position, then live, with nothing doubled or missed at the seam', async () => {
      const stream = streamName();
      await store.append(stream, events(5));
      const subscription = store.subscribeToStream(stream, { afterPosition: 2 });
      const appending = (async () => {
        for (let i = 0; i < 20; i += 1) await store.append(stream, [anEvent()]);
      })();

      const received = await take(subscription, 22);
      await appending;
      await subscription.close();
      expect(received.map((e) => e.streamPosition)).toEqual(
        Array.from({ length: 22 }, (_, i) => i + 3),
      );
    });

    it('delivers a whole stream when subscribed from the start, and stops when closed', async () => {
      const stream = streamName();
      await store.append(stream, events(2));
      const subscription = store.subscribeToStream(stream);
      const caughtUp = await take(subscription, 2);
      setTimeout(() => void store.append(stream, [anEvent('Later')]), 20);
      const live = await take(subscription, 1);
      await subscription.close();

      expect(caughtUp.map((e) => e.streamPosition)).toEqual([0, 1]);
      expect(live.map((e) => [e.type, e.streamPosition])).toEqual([['Later', 2]]);
      expect(await subscription[Symbol.asyncIterator]().next()).toEqual({
        done: true,
        value: undefined,
      });
    });

    it('follows the global log from a checkpoint', async () => {
      const stream = streamName();
      const checkpoint = await store.append(streamName(), [anEvent()]);
      await store.append(stream, events(3));
      const subscription = store.subscribeToLog({ after: checkpoint.logPosition });
      const appending = (async () => {
        for (let i = 0; i < 10; i += 1) await store.append(stream, [anEvent()]);
      })();

      const received = await take(subscription, 13, (e) => e.streamId === stream);
      await appending;
      await subscription.close();
      expect(received.map((e) => e.streamPosition)).toEqual([...Array(13).keys()]);
    });

    it('passes over the events a log subscriber does not keep, and goes on after them', async () => {
      const [kept, other] = [streamName(), streamName()];
      const checkpoint = await store.append(streamName(), [anEvent()]);
      await store.append(other, events(3));
      await store.append(kept, [anEvent('First')]);
      const subscription = store.subscribeToLog({
        after: checkpoint.logPosition,
        keeps: (event) => event.streamId === kept,
      });
      const appending = (async () => {
        await store.append(other, events(2));
        await store.append(kept, [anEvent('Second')]);
      })();

      const received = await take(subscription, 2);
      await appending;
      await subscription.close();
      expect(received.map((e) => [e.streamId, e.type])).toEqual([
        [kept, 'First'],
        [kept, 'Second'],
      ]);
    });
  });
}

async function readLogUntil(
  store: EventStore,
  after: RecordedEvent['logPosition'],
  keep: (event: RecordedEvent) => boolean,
  count: number,
): Promise<RecordedEvent[]> {
  const subscription = store.subscribeToLog({ after });
  try {
    return await take(subscription, count, keep);
  } finally {
    await subscription.close();
  }
}
