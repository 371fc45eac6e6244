import { describe, expect, it } from '@jest/globals';
import type { EventStore, JsonObject, ReadStreamOptions, RecordedEvent } from '#libs/event-store';
import { WHOLE } from '../common/delta-chain.js';
import { FinishedValuesMemory } from './finished-values-memory.js';
import { runStream } from './run.events.js';
import { ValuesChunkEncoder } from './values-chunk-delta.js';
import { ValuesChunkExpander } from './values-chunk-expander.js';

const THREAD = 'thread-1';

const state = (messages: number): JsonObject => ({
  messages: Array.from({ length: messages }, (_, i) => ({ type: 'ai', content: `message ${i}` })),
});

/** Run streams as a writer leaves them, and how often a reader asked for one. */
class RunStreams {
  readonly streams = new Map<string, RecordedEvent[]>();
  reads = 0;

  readonly store = {
    readStream: (stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> => {
      this.reads += 1;
      const events = this.streams.get(stream) ?? [];
      if (options.direction === 'backwards') {
        return Promise.resolve(events.slice().reverse().slice(0, options.maxCount));
      }
      const from = options.fromPosition ?? 0;
      return Promise.resolve(events.slice(from, from + (options.maxCount ?? events.length)));
    },
  } as unknown as EventStore;

  /** A run that emits one values chunk of `messages` and ends with them, after `earlier`. */
  record(runId: string, messages: number, earlier?: { runId: string; messages: number }): void {
    const encoder = new ValuesChunkEncoder(
      earlier && { runId: earlier.runId, values: state(earlier.messages), chain: WHOLE },
    );
    const stream = runStream(runId);
    const chunk = encoder.encode(0, 'values', state(messages));
    const final = encoder.encodeFinal(state(messages));
    const outcome = { values: final.values, values_extends: final.values_extends };
    const event = (position: number, type: string, data: JsonObject): RecordedEvent => ({
      eventId: `${runId}-${position}`,
      type,
      streamId: stream,
      streamPosition: position,
      logPosition: { commit: 0n, prepare: 0n },
      data,
      metadata: {},
      recordedAt: new Date(0),
    });
    this.streams.set(stream, [
      event(0, 'RunStepEmitted', {
        seq: 0,
        event: 'values',
        data: chunk.data,
        ...(chunk.extends ? { extends: chunk.extends } : {}),
      }),
      event(1, 'RunFinished', { run_id: runId, thread_id: THREAD, ...outcome }),
    ]);
  }

  outcomeOf(runId: string): RecordedEvent {
    const events = this.streams.get(runStream(runId)) ?? [];
    return events[events.length - 1] as RecordedEvent;
  }
}

/** Five runs of one thread, each adding a message: a chain of deltas across all five. */
function thread(): RunStreams {
  const runs = new RunStreams();
  runs.record('run-1', 1);
  for (let n = 2; n <= 5; n += 1)
    runs.record(`run-${n}`, n, { runId: `run-${n - 1}`, messages: n - 1 });
  return runs;
}

describe('ValuesChunkExpander', () => {
  it("reads a run's outcome whole back through every run its chain spans, when nothing is remembered", async () => {
    const runs = thread();
    const expander = new ValuesChunkExpander(runs.store, new FinishedValuesMemory());
    const whole = await expander.expand(runs.outcomeOf('run-5'));
    expect(whole.data['values']).toEqual(state(5));
    expect(runs.reads).toBeGreaterThanOrEqual(8);
  });

  it("folds onto the thread's last run as this process remembers it: one read, not one per run", async () => {
    const runs = thread();
    const memory = new FinishedValuesMemory();
    memory.remember(THREAD, 'run-4', state(4), WHOLE);
    const expander = new ValuesChunkExpander(runs.store, memory);
    expect((await expander.expand(runs.outcomeOf('run-5'))).data['values']).toEqual(state(5));
    expect(runs.reads).toBe(1);
  });

  it('gives a remembered run its outcome whole without reading at all', async () => {
    const runs = thread();
    const memory = new FinishedValuesMemory();
    memory.remember(THREAD, 'run-5', state(5), WHOLE);
    const expander = new ValuesChunkExpander(runs.store, memory);
    const whole = await expander.expand(runs.outcomeOf('run-5'));
    expect(whole.data).toMatchObject({ values: state(5), values_extends: null });
    expect(runs.reads).toBe(0);
  });
});
