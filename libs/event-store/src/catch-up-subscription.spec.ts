import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { AppendSignals, type AppendNotice, type WakeListener } from './append-signals.js';
import { CatchUpSubscription, type CatchUpSource } from './catch-up-subscription.js';
import type { RecordedEvent } from './event-store.port.js';

/** Far longer than any test may run: a test that passes cannot have waited for a poll. */
const NEVER_POLL_MS = 60_000;
/** The per-test timeout of the tests that must be woken rather than polled. */
const WAKE_TIMEOUT_MS = 3_000;

interface ReadCall {
  readonly after: number | undefined;
  readonly maxCount: number;
  readonly returned: number[];
}

/**
 * An in-memory log whose cursor is the event's index. An event can be hidden for its first
 * reads, like a row written by a transaction that has not committed yet; as in the log, a
 * hidden event also hides everything after it.
 */
class MemorySource implements CatchUpSource<number> {
  readonly reads: ReadCall[] = [];
  ignores: ((notice: AppendNotice) => boolean) | undefined;
  /** How many times a listener was registered, and how many are still registered. */
  listens = 0;
  listening = 0;
  private readonly events: RecordedEvent[] = [];
  private readonly hiddenFor = new Map<number, number>();
  private dryWaiters: (() => void)[] = [];

  constructor(private readonly signals: AppendSignals) {}

  /** Stores an event without telling anyone. */
  append(options: { hiddenForReads?: number } = {}): RecordedEvent {
    const position = this.events.length;
    const event: RecordedEvent = {
      eventId: `event-${position}`,
      type: 'Happened',
      streamId: 'things-1',
      streamPosition: position,
      logPosition: { commit: BigInt(position + 1), prepare: 0n },
      data: { position },
      metadata: {},
      recordedAt: new Date('2026-01-01T00:00:00Z'),
    };
    this.events.push(event);
    if (options.hiddenForReads) this.hiddenFor.set(position, options.hiddenForReads);
    return event;
  }

  appendMany(count: number): RecordedEvent[] {
    return Array.from({ length: count }, () => this.append());
  }

  notice(event: RecordedEvent): AppendNotice {
    return {
      streamId: event.streamId,
      streamPosition: event.streamPosition,
      logPosition: event.logPosition,
    };
  }

  /** Resolves after the next read that comes back short: the subscription is caught up. */
  nextDryRead(): Promise<void> {
    return new Promise((resolve) => this.dryWaiters.push(resolve));
  }

  read(after: number | undefined, maxCount: number): Promise<RecordedEvent[]> {
    const batch: RecordedEvent[] = [];
    for (let position = (after ?? -1) + 1; position < this.events.length; position += 1) {
      if (batch.length === maxCount) break;
      const hidden = this.hiddenFor.get(position) ?? 0;
      if (hidden > 0) break;
      const event = this.events[position];
      if (!event) throw new Error(`no event at ${position}`);
      batch.push(event);
    }
    for (const [position, hidden] of this.hiddenFor) this.hiddenFor.set(position, hidden - 1);
    this.reads.push({ after, maxCount, returned: batch.map((event) => event.streamPosition) });
    if (batch.length < maxCount) {
      const waiters = this.dryWaiters;
      this.dryWaiters = [];
      for (const resolve of waiters) resolve();
    }
    return Promise.resolve(batch);
  }

  cursorOf(event: RecordedEvent): number {
    return event.streamPosition;
  }

  isAhead(notice: AppendNotice, cursor: number | undefined): boolean {
    return notice.streamPosition > (cursor ?? -1);
  }

  listen(listener: WakeListener): () => void {
    this.listens += 1;
    this.listening += 1;
    const unlisten = this.signals.onLog(listener);
    let registered = true;
    return () => {
      if (registered) this.listening -= 1;
      registered = false;
      unlisten();
    };
  }
}

const subscriptions: CatchUpSubscription<number>[] = [];

function subscribe(
  source: MemorySource,
  options: {
    after?: number;
    batchSize?: number;
    pollIntervalMs?: number;
    onCaughtUp?: () => void;
  } = {},
): CatchUpSubscription<number> {
  const subscription = new CatchUpSubscription(source, options.after, {
    batchSize: options.batchSize ?? 100,
    pollIntervalMs: options.pollIntervalMs ?? NEVER_POLL_MS,
    ...(options.onCaughtUp ? { onCaughtUp: options.onCaughtUp } : {}),
  });
  subscriptions.push(subscription);
  return subscription;
}

afterEach(async () => {
  // Wakes any subscription left sleeping, so no poll timer outlives its test.
  await Promise.all(subscriptions.splice(0).map((subscription) => subscription.close()));
});

async function nextEvent(iterator: AsyncIterator<RecordedEvent>): Promise<RecordedEvent> {
  const result = await iterator.next();
  if (result.done === true) throw new Error('the subscription ended');
  return result.value;
}

async function take(iterator: AsyncIterator<RecordedEvent>, count: number): Promise<number[]> {
  const positions: number[] = [];
  for (let i = 0; i < count; i += 1) positions.push((await nextEvent(iterator)).streamPosition);
  return positions;
}

/**
 * Waits until the subscription has read itself dry and gone to sleep. Between the dry read and
 * the sleep there are only microtasks, so one turn of the event loop is enough: no guessing.
 */
async function untilAsleep(dryRead: Promise<void>): Promise<void> {
  await dryRead;
  await new Promise((resolve) => setImmediate(resolve));
}

describe('CatchUpSubscription', () => {
  describe('catching up', () => {
    it('reads in batches of batchSize from its cursor, delivering every event once in order', async () => {
      const signals = new AppendSignals();
      const source = new MemorySource(signals);
      source.appendMany(5);
      const iterator = subscribe(source, { batchSize: 2 })[Symbol.asyncIterator]();

      expect(await take(iterator, 5)).toEqual([0, 1, 2, 3, 4]);
      expect(source.reads).toEqual([
        { after: undefined, maxCount: 2, returned: [0, 1] },
        { after: 1, maxCount: 2, returned: [2, 3] },
        { after: 3, maxCount: 2, returned: [4] },
      ]);

      await iterator.return?.();
    });

    it('starts after the position it was given', async () => {
      const source = new MemorySource(new AppendSignals());
      source.appendMany(4);
      const iterator = subscribe(source, { after: 1, batchSize: 10 })[Symbol.asyncIterator]();

      expect(await take(iterator, 2)).toEqual([2, 3]);
      expect(source.reads[0]).toEqual({ after: 1, maxCount: 10, returned: [2, 3] });

      await iterator.return?.();
    });

    it(
      'reads once more after a full batch, then sleeps when that read comes back empty',
      async () => {
        const source = new MemorySource(new AppendSignals());
        source.appendMany(4);
        const subscription = subscribe(source, { batchSize: 2 });
        const iterator = subscription[Symbol.asyncIterator]();
        expect(await take(iterator, 4)).toEqual([0, 1, 2, 3]);

        const dry = source.nextDryRead();
        const pending = iterator.next();
        await untilAsleep(dry);

        expect(source.reads.map((read) => read.returned)).toEqual([[0, 1], [2, 3], []]);
        await subscription.close();
        await expect(pending).resolves.toEqual({ done: true, value: undefined });
      },
      WAKE_TIMEOUT_MS,
    );
    it(
      'says once that it caught up: after the last event there was is taken, before waiting',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        source.appendMany(4);
        const taken: string[] = [];
        const subscription = subscribe(source, {
          batchSize: 2,
          onCaughtUp: () => taken.push('caught up'),
        });
        const iterator = subscription[Symbol.asyncIterator]();
        for (const position of await take(iterator, 4)) taken.push(String(position));
        expect(taken).toEqual(['0', '1', '2', '3']);

        const dry = source.nextDryRead();
        const pending = iterator.next();
        await untilAsleep(dry);
        expect(taken).toEqual(['0', '1', '2', '3', 'caught up']);

        signals.publish(source.notice(source.append()));
        await pending;
        expect(taken.filter((entry) => entry === 'caught up')).toHaveLength(1);
        await subscription.close();
      },
      WAKE_TIMEOUT_MS,
    );
  });

  describe('following live', () => {
    it(
      'delivers an appended event as soon as its notice is published, without waiting for the poll',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        source.appendMany(3);
        const dry = source.nextDryRead();
        const iterator = subscribe(source, { batchSize: 10 })[Symbol.asyncIterator]();
        expect(await take(iterator, 3)).toEqual([0, 1, 2]);

        const pending = iterator.next();
        await untilAsleep(dry);
        const appended = source.append();
        signals.publish(source.notice(appended));

        await expect(pending).resolves.toEqual({ done: false, value: appended });
        expect(source.reads.map((read) => read.returned)).toEqual([[0, 1, 2], [3]]);
      },
      WAKE_TIMEOUT_MS,
    );

    it(
      'passes over appends its source ignores until one it does not, or until asked to read now',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        source.ignores = (notice) => notice.appended?.types.has('Chunk') === true;
        const chunk = { count: 1, types: new Set(['Chunk']) };
        const dry = source.nextDryRead();
        const subscription = subscribe(source);
        const iterator = subscription[Symbol.asyncIterator]();

        let pending = iterator.next();
        await untilAsleep(dry);
        const first = source.append();
        signals.publish({ ...source.notice(first), appended: chunk });
        const second = source.append();
        signals.publish({
          ...source.notice(second),
          appended: { count: 1, types: new Set(['Started']) },
        });
        expect([(await pending).value, await nextEvent(iterator)]).toEqual([first, second]);
        expect(source.reads.map((read) => read.returned)).toEqual([[], [0, 1]]);

        // That read came back short: the next pull finds nothing to read and sleeps.
        pending = iterator.next();
        await new Promise((resolve) => setImmediate(resolve));
        const third = source.append();
        signals.publish({ ...source.notice(third), appended: chunk });
        await new Promise((resolve) => setImmediate(resolve));
        expect(source.reads).toHaveLength(2);
        subscription.readNow();

        await expect(pending).resolves.toEqual({ done: false, value: third });
      },
      WAKE_TIMEOUT_MS,
    );

    it(
      'is woken by publishUnknown, when only "something was appended" is known',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        const dry = source.nextDryRead();
        const iterator = subscribe(source)[Symbol.asyncIterator]();

        const pending = iterator.next();
        await untilAsleep(dry);
        const appended = source.append();
        signals.publishUnknown();

        await expect(pending).resolves.toEqual({ done: false, value: appended });
      },
      WAKE_TIMEOUT_MS,
    );

    it(
      'does not lose a wake-up that arrives while it is reading',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        const read = source.read.bind(source);
        // The first read sees the empty log, but the append lands before it returns.
        let appended: RecordedEvent | undefined;
        jest.spyOn(source, 'read').mockImplementationOnce(async (after, maxCount) => {
          const batch = await read(after, maxCount);
          appended = source.append();
          signals.publishUnknown();
          return batch;
        });
        const iterator = subscribe(source)[Symbol.asyncIterator]();

        const event = await nextEvent(iterator);

        expect(appended).toBeDefined();
        expect(event).toBe(appended);
        expect(source.reads.map((call) => call.returned)).toEqual([[], [0]]);
        await iterator.return?.();
      },
      WAKE_TIMEOUT_MS,
    );

    it(
      'retries a notified event that is not readable yet, with a growing back-off, until it appears',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        source.appendMany(2);
        const dry = source.nextDryRead();
        const iterator = subscribe(source)[Symbol.asyncIterator]();
        expect(await take(iterator, 2)).toEqual([0, 1]);

        const pending = iterator.next();
        await untilAsleep(dry);
        const setTimeoutSpy = jest.spyOn(globalThis, 'setTimeout');
        try {
          const hidden = source.append({ hiddenForReads: 3 });
          signals.publish(source.notice(hidden));

          await expect(pending).resolves.toEqual({ done: false, value: hidden });
          const delays = setTimeoutSpy.mock.calls.map(([, delay]) => delay);
          expect(delays).toEqual([1, 2, 4]);
        } finally {
          setTimeoutSpy.mockRestore();
        }
        expect(source.reads.map((read) => read.returned)).toEqual([[0, 1], [], [], [], [2]]);
      },
      WAKE_TIMEOUT_MS,
    );

    it(
      'delivers the events after a late one in log order once it appears',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        const dry = source.nextDryRead();
        const iterator = subscribe(source)[Symbol.asyncIterator]();

        const pending = iterator.next();
        await untilAsleep(dry);
        const late = source.append({ hiddenForReads: 2 });
        const onTime = source.append();
        signals.publish(source.notice(onTime));

        await expect(pending).resolves.toEqual({ done: false, value: late });
        expect(await nextEvent(iterator)).toBe(onTime);
      },
      WAKE_TIMEOUT_MS,
    );
  });

  describe('closing', () => {
    it(
      'ends the iteration when closed while asleep, and stops listening',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        source.appendMany(1);
        const dry = source.nextDryRead();
        const subscription = subscribe(source);
        const iterator = subscription[Symbol.asyncIterator]();
        expect(await take(iterator, 1)).toEqual([0]);

        const pending = iterator.next();
        await untilAsleep(dry);
        await subscription.close();

        await expect(pending).resolves.toEqual({ done: true, value: undefined });
        await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
        expect(source.listening).toBe(0);

        const readsBefore = source.reads.length;
        signals.publish(source.notice(source.append()));
        await new Promise((resolve) => setImmediate(resolve));
        expect(source.reads).toHaveLength(readsBefore);
      },
      WAKE_TIMEOUT_MS,
    );

    it(
      'ends the iteration when closed while backing off for a late event',
      async () => {
        const signals = new AppendSignals();
        const source = new MemorySource(signals);
        const dry = source.nextDryRead();
        const subscription = subscribe(source);
        const iterator = subscription[Symbol.asyncIterator]();

        const pending = iterator.next();
        await untilAsleep(dry);
        const neverVisible = source.append({ hiddenForReads: Number.MAX_SAFE_INTEGER });
        signals.publish(source.notice(neverVisible));
        // The notice's wake-up leads to an empty read and then the first back-off sleep.
        await untilAsleep(source.nextDryRead());
        await subscription.close();

        await expect(pending).resolves.toEqual({ done: true, value: undefined });
      },
      WAKE_TIMEOUT_MS,
    );

    it('delivers nothing more from the batch in hand once closed', async () => {
      const source = new MemorySource(new AppendSignals());
      source.appendMany(3);
      const subscription = subscribe(source, { batchSize: 10 });
      const iterator = subscription[Symbol.asyncIterator]();
      expect(await take(iterator, 1)).toEqual([0]);

      await subscription.close();

      await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
      expect(source.reads).toHaveLength(1);
    });

    it(
      'ends at once when closed while the consumer holds the last event read',
      async () => {
        const source = new MemorySource(new AppendSignals());
        source.appendMany(1);
        const subscription = subscribe(source, { batchSize: 10 });
        const iterator = subscription[Symbol.asyncIterator]();
        expect(await take(iterator, 1)).toEqual([0]);

        await subscription.close();

        await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined });
      },
      WAKE_TIMEOUT_MS,
    );

    it('stops listening when the consumer breaks out of a for await loop', async () => {
      const source = new MemorySource(new AppendSignals());
      source.appendMany(3);
      const seen: number[] = [];

      for await (const event of subscribe(source)) {
        seen.push(event.streamPosition);
        if (seen.length === 2) break;
      }

      expect(seen).toEqual([0, 1]);
      expect(source.listens).toBe(1);
      expect(source.listening).toBe(0);
    });
  });

  describe('iterating', () => {
    it('continues the same iteration from every [Symbol.asyncIterator]() call', async () => {
      const source = new MemorySource(new AppendSignals());
      source.appendMany(4);
      const subscription = subscribe(source, { batchSize: 10 });

      const first = subscription[Symbol.asyncIterator]();
      expect((await nextEvent(first)).streamPosition).toBe(0);
      const second = subscription[Symbol.asyncIterator]();
      expect((await nextEvent(second)).streamPosition).toBe(1);
      expect((await nextEvent(first)).streamPosition).toBe(2);

      const rest: number[] = [];
      for await (const event of subscription) {
        rest.push(event.streamPosition);
        break;
      }

      expect(second).toBe(first);
      expect(rest).toEqual([3]);
      expect(source.listens).toBe(1);
      expect(source.reads).toHaveLength(1);
    });

    it('does not listen before it is iterated', () => {
      const source = new MemorySource(new AppendSignals());

      subscribe(source);

      expect(source.listens).toBe(0);
    });
  });
});
