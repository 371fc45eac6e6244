import type { EventStore, EventToAppend, JsonObject, RecordedEvent } from '#libs/event-store';
import { REQUEST_ID_METADATA, runEventId, withLifecycleIds } from './run-event-ids.js';
import {
  decideRunLifecycle,
  foldRunLifecycle,
  initialRunLifecycle,
  type RunLifecycle,
} from './run.decider.js';
import { runStream, type RunCreatedData, type RunFinishedData } from '../run-records/run.events.js';

/**
 * Appends `RunCreated` and the stream's first chunk, `metadata` of attempt 1, so that a client
 * streaming the run has its first event as soon as the run exists. The API does it after queueing
 * the run, and a worker does it again in case that process died in between: the fixed event ids
 * make the second a no-op. Returns where the new stream stands when this call wrote it.
 */
export async function ensureRunCreated(
  store: EventStore,
  data: RunCreatedData,
): Promise<RunProgress | undefined> {
  const eventId = runEventId(data.run_id, 'created');
  const events = withLifecycleIds(
    data.run_id,
    decideRunLifecycle({ kind: 'create', data }, initialRunLifecycle),
  );
  try {
    await store.append(runStream(data.run_id), events, { expectedPosition: 'no_stream' });
  } catch (error) {
    const [first] = await store.readStream(runStream(data.run_id), { maxCount: 1 });
    if (first?.eventId !== eventId) throw error;
    return undefined;
  }
  return progressOf(events.map((event, streamPosition) => ({ ...event, streamPosition })));
}

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
  const last = events.at(-1);
  const lastStep = events.findLast((event) => event.type === 'RunStepEmitted');
  const seq = lastStep?.data.seq;
  return {
    position: last ? last.streamPosition : -1,
    nextSeq: typeof seq === 'number' ? seq + 1 : 0,
    lifecycle: foldRunLifecycle(events),
    requestId: requestIdOf(events[0]?.metadata),
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

/** A run whose outcome this process recorded. */
export interface FinishedRun {
  readonly created: RunCreatedData;
  readonly finished: RunFinishedData;
  /** When the attempt that finished started; null for a run cancelled before any attempt. */
  readonly startedAt: string | null;
}

/** Told of the attempts this process starts and the runs it finishes. Must neither throw nor block. */
export abstract class RunObserver {
  abstract runFinished(run: FinishedRun): void;

  /** An attempt of `run` started here. */
  runStarted(_run: RunCreatedData, _attempt: number, _startedAt: string): void {
    // Most observers only care how runs end.
  }

  /** Told last, once no run can start or finish here any more. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Tells each observer in turn; one that throws does not keep the others from hearing. */
export class RunObservers extends RunObserver {
  constructor(private readonly observers: readonly RunObserver[]) {
    super();
  }

  runFinished(run: FinishedRun): void {
    this.tellEach((observer) => {
      observer.runFinished(run);
    });
  }

  override runStarted(run: RunCreatedData, attempt: number, startedAt: string): void {
    this.tellEach((observer) => {
      observer.runStarted(run, attempt, startedAt);
    });
  }

  override async close(): Promise<void> {
    await Promise.allSettled(this.observers.map((observer) => observer.close()));
  }

  /** After the HTTP server and the workers: the runs they finished are reported too. */
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  private tellEach(tell: (observer: RunObserver) => void): void {
    for (const observer of this.observers) {
      try {
        tell(observer);
      } catch {
        // An observer never fails a run whose outcome is already in the log.
      }
    }
  }
}

/** The observer when nobody observes. */
export class NoRunObserver extends RunObserver {
  runFinished(): void {
    // Nothing to tell.
  }
}

/**
 * Decides a run's outcome on its lifecycle (with `RunDeleted` for a rollback), appends it through
 * `append`, then tells `observer`: the one place every path (a worker's outcome, a pending run
 * cancelled, stateless or not) records how a run ended.
 */
export async function recordRunFinished(
  append: (events: readonly EventToAppend[]) => Promise<unknown>,
  lifecycle: RunLifecycle,
  run: FinishedRun & { readonly rolledBack: boolean },
  observer: RunObserver,
  /** The outcome as the log keeps it, when not as the observer hears it (values as a delta). */
  stored: RunFinishedData = run.finished,
): Promise<void> {
  const events = decideRunLifecycle(
    { kind: 'finish', finished: stored, alsoDelete: run.rolledBack },
    lifecycle,
  );
  if (events.length === 0) return;
  await append(withLifecycleIds(run.finished.run_id, events));
  try {
    observer.runFinished(run);
  } catch {
    // An observer never fails a run whose outcome is already in the log.
  }
}
