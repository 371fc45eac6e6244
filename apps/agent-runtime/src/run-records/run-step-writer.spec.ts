import { describe, expect, it } from '@jest/globals';
import {
  WrongExpectedPositionError,
  type AppendOptions,
  type AppendResult,
  type EventToAppend,
} from '#libs/event-store';
import { RunStepWriter } from './run-step-writer.js';

/** Records appends; each resolves only when the test lets it. */
class GatedStore {
  readonly appends: { events: EventToAppend[]; expected: AppendOptions['expectedPosition'] }[] = [];
  private position: number;
  private gates: (() => void)[] = [];

  constructor(position: number) {
    this.position = position;
  }

  append(
    _stream: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    this.appends.push({ events: [...events], expected: options.expectedPosition });
    if (options.expectedPosition !== this.position) {
      return Promise.reject(
        new WrongExpectedPositionError('run-1', options.expectedPosition ?? 'any', this.position),
      );
    }
    this.position += events.length;
    const position = this.position;
    return new Promise((resolve) =>
      this.gates.push(() => {
        resolve({
          streamPosition: position,
          logPosition: { commit: 1n, prepare: BigInt(position) },
        });
      }),
    );
  }

  release(): void {
    for (const gate of this.gates.splice(0)) gate();
  }

  /** Lets every append through as it comes, until `until` settles (and rethrows its failure). */
  async drain(until: Promise<unknown>): Promise<void> {
    const state = { done: false };
    const settled = until.finally(() => {
      state.done = true;
    });
    while (!state.done) {
      this.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await settled;
  }
}

function writerOn(store: GatedStore, position = 1, seq = 0): RunStepWriter {
  return new RunStepWriter(store as never, 'run-1', position, seq);
}

describe('RunStepWriter', () => {
  it('numbers chunks from the given seq, appends those of one turn together, and batches those that arrive while an append is in flight', async () => {
    const store = new GatedStore(1);
    const writer = writerOn(store, 1, 5);
    await writer.emit('metadata', { run_id: 'run-1' });
    await writer.emit('values', { a: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    await writer.emit('values', { a: 2 });
    await writer.emit('values', { a: 3 });
    await store.drain(writer.flush());

    expect(store.appends.map((a) => a.events.map((e) => e.data.seq))).toEqual([
      [5, 6],
      [7, 8],
    ]);
    expect(store.appends.map((a) => a.expected)).toEqual([1, 3]);
    expect(writer.streamPosition).toBe(5);
  });

  it('appends what comes after a flush that found nothing to do', async () => {
    const store = new GatedStore(1);
    const writer = writerOn(store);
    await writer.flush();
    await store.drain(writer.append([{ eventId: 'e1', type: 'RunFinished', data: {} }]));

    expect(store.appends.map((a) => a.events.map((e) => e.type))).toEqual([['RunFinished']]);
  });

  it('appends lifecycle events after the chunks queued before them', async () => {
    const store = new GatedStore(1);
    const writer = writerOn(store);
    await writer.emit('values', {});
    await store.drain(writer.append([{ eventId: 'e1', type: 'RunFinished', data: {} }]));

    expect(store.appends.flatMap((a) => a.events.map((e) => e.type))).toEqual([
      'RunStepEmitted',
      'RunFinished',
    ]);
  });

  it('fails every later call once another writer has moved the stream', async () => {
    const store = new GatedStore(7);
    const writer = writerOn(store, 1);
    await writer.emit('values', {});
    await expect(writer.flush()).rejects.toBeInstanceOf(WrongExpectedPositionError);
    await expect(writer.emit('values', {})).rejects.toBeInstanceOf(WrongExpectedPositionError);
  });
});
