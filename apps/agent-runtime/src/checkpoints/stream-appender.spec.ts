import { describe, expect, it } from '@jest/globals';
import type { AppendOptions, AppendResult, EventToAppend } from '#libs/event-store';
import { StreamAppender } from './stream-appender.js';

/** Appends in memory; each append waits until the test releases it. */
class GatedStore {
  readonly appends: {
    stream: string;
    ids: string[];
    expected: AppendOptions['expectedPosition'];
  }[] = [];
  private readonly positions = new Map<string, number>();
  private gates: (() => void)[] = [];
  failNext = false;

  append(
    stream: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    this.appends.push({
      stream,
      ids: events.map((e) => e.eventId),
      expected: options.expectedPosition,
    });
    return new Promise((resolve, reject) => {
      this.gates.push(() => {
        if (this.failNext) {
          this.failNext = false;
          reject(new Error('disk full'));
          return;
        }
        const position = (this.positions.get(stream) ?? -1) + events.length;
        this.positions.set(stream, position);
        resolve({
          streamPosition: position,
          logPosition: { commit: 1n, prepare: BigInt(position) },
        });
      });
    });
  }

  release(): void {
    for (const gate of this.gates.splice(0)) gate();
  }
}

const event = (id: string): EventToAppend => ({ eventId: id, type: 'CheckpointSaved', data: {} });
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('StreamAppender', () => {
  it('gathers what arrives within one turn, and then what arrives while an append is in flight, in call order', async () => {
    const store = new GatedStore();
    const appender = new StreamAppender(store as never);
    const first = appender.append('checkpoints-t', event('a'));
    const second = appender.append('checkpoints-t', event('b'));
    await turn();
    const third = appender.append('checkpoints-t', event('c'));
    const fourth = appender.append('checkpoints-t', event('d'));
    store.release();
    await turn();
    store.release();

    expect(await Promise.all([first, second, third, fourth])).toEqual([0, 1, 2, 3]);
    expect(store.appends.map((a) => a.ids)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(store.appends.every((a) => a.expected === 'any')).toBe(true);
  });

  it('keeps streams apart', async () => {
    const store = new GatedStore();
    const appender = new StreamAppender(store as never);
    const one = appender.append('checkpoints-1', event('a'));
    const two = appender.append('checkpoints-2', event('b'));
    await turn();
    store.release();

    expect(await Promise.all([one, two])).toEqual([0, 0]);
    expect(store.appends.map((a) => a.stream)).toEqual(['checkpoints-1', 'checkpoints-2']);
  });

  it('fails the events of a failed append, and goes on with later ones', async () => {
    const store = new GatedStore();
    const appender = new StreamAppender(store as never);
    store.failNext = true;
    const failed = appender.append('checkpoints-t', event('a'));
    await turn();
    store.release();
    await expect(failed).rejects.toThrow('disk full');

    const later = appender.append('checkpoints-t', event('b'));
    await turn();
    store.release();
    expect(await later).toBe(0);
  });
});
