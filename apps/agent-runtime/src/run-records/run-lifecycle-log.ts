import type { EventStore, EventToAppend } from '#libs/event-store';
import { runEventId, withLifecycleIds } from './run-event-ids.js';
import { decideRunLifecycle, initialRunLifecycle, type RunLifecycle } from './run.decider.js';
import type { FinishedRun, RunObserver } from './run-observers.js';
import { progressOf, type RunProgress } from './run-progress.js';
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
