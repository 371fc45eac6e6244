import type { EventStore, JsonObject, RecordedEvent } from '#libs/event-store';
import { REQUEST_ID_METADATA } from './run-event-ids.js';
import { foldRunLifecycle, type RunLifecycle } from './run.decider.js';
import { runStream } from '../run-records/run.events.js';

export interface RunProgress {
  /** The position of the stream's last event. */
  readonly position: number;
  /** The number the next stream chunk gets. */
  readonly nextSeq: number;
  readonly lifecycle: RunLifecycle;
  /** The request that created the run, when it came through the API. */
  readonly requestId: string | undefined;
}

/** Where a run's stream stands, for a new attempt to carry on numbering its chunks. */
export async function runProgress(store: EventStore, runId: string): Promise<RunProgress> {
  return progressOf(await store.readStream(runStream(runId)));
}

/** Where a run's stream of these events stands. */
export function progressOf(
  events: readonly (Pick<RecordedEvent, 'type' | 'data' | 'streamPosition'> & {
    readonly metadata?: JsonObject;
  })[],
): RunProgress {
  const requestId = requestIdOf(events[0]?.metadata);
  const last = events.at(-1);
  const lastStep = events.findLast((event) => event.type === 'RunStepEmitted');
  const seq = lastStep?.data.seq;
  return {
    position: last ? last.streamPosition : -1,
    nextSeq: typeof seq === 'number' ? seq + 1 : 0,
    lifecycle: foldRunLifecycle(events),
    requestId,
  };
}

function requestIdOf(metadata: JsonObject | undefined): string | undefined {
  const requestId = metadata?.[REQUEST_ID_METADATA];
  return typeof requestId === 'string' ? requestId : undefined;
}

/** Whether the run's outcome is in the log. */
export async function runHasFinished(store: EventStore, runId: string): Promise<boolean> {
  const [last] = await store.readStream(runStream(runId), { direction: 'backwards', maxCount: 1 });
  return last?.type === 'RunFinished';
}
