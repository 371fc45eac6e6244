import type { EventStore, JsonObject, JsonValue } from '#libs/event-store';
import { runInRequest } from '#libs/logging';
import { withLifecycleIds } from './run-event-ids.js';
import { decideRunLifecycle, evolveRunLifecycle, type RunLifecycle } from './run.decider.js';
import type { RunFinishedData } from './run.events.js';
import { ensureRunCreated, recordRunFinished } from './run-lifecycle-log.js';
import type { RunObserver } from './run-observers.js';
import { runProgress, type RunProgress } from './run-progress.js';
import type { ClaimedRun } from './run-queue.js';
import type { RunSignals } from './run-signals.js';
import { RunStepWriter } from './run-step-writer.js';
import type { FinishedValuesMemory } from './finished-values-memory.js';

/** What every attempt's log is opened with. */
export interface RunAttemptLogs {
  readonly store: EventStore;
  readonly signals: RunSignals;
  readonly observer: RunObserver;
  readonly finishedValues: FinishedValuesMemory;
}

/** How an attempt ended, as its outcome records it. */
export interface AttemptEnding {
  readonly status: RunFinishedData['status'];
  readonly error: JsonObject | null;
  /** Cancelled with `rollback`: the run is deleted with its outcome. */
  readonly rolledBack: boolean;
  /** The thread's state after the run, when it could be read. */
  readonly state: Pick<RunFinishedData, 'values' | 'next' | 'interrupts'> | undefined;
}

/**
 * What one attempt of a claimed run writes to the run's stream, bound once to the run: where the
 * stream stands, the attempt's start, its chunks, its outcome.
 */
export class RunAttemptLog {
  private readonly writer: RunStepWriter;
  private lifecycle: RunLifecycle;
  private started: string | undefined;

  private constructor(
    private readonly logs: RunAttemptLogs,
    private readonly claimed: ClaimedRun,
    private readonly progress: RunProgress,
  ) {
    const run = claimed.payload;
    this.lifecycle = progress.lifecycle;
    this.writer = new RunStepWriter(
      logs.store,
      run.run_id,
      progress.position,
      progress.nextSeq,
      logs.finishedValues.of(run.thread_id),
    );
  }

  /** Reads where the run's stream stands (recording the run first when its creator died before). */
  static async open(logs: RunAttemptLogs, claimed: ClaimedRun): Promise<RunAttemptLog> {
    const run = claimed.payload;
    // Recorded by this process and not attempted before: nothing else has written its stream.
    const recorded = logs.signals.takeRecorded(run.run_id);
    let progress =
      claimed.attempt === 1 && recorded ? recorded : await runProgress(logs.store, run.run_id);
    if (progress.position === -1) {
      // The process that queued the run died before it recorded it.
      progress =
        (await ensureRunCreated(logs.store, run)) ?? (await runProgress(logs.store, run.run_id));
    }
    return new RunAttemptLog(logs, claimed, progress);
  }

  /** Whether the run's outcome is in the log already: only its queue row outlived it. */
  get ended(): boolean {
    const { phase } = this.lifecycle;
    return phase === 'finished' || phase === 'deleted';
  }

  /** Runs `work` in the request that created the run: what it writes and logs names that request. */
  inRequest<T>(work: () => Promise<T>): Promise<T> {
    const { requestId } = this.progress;
    return requestId ? runInRequest(requestId, work) : work();
  }

  /**
   * Records the attempt's start, and returns when it was; a retry's first chunk announces it
   * (attempt 1's came with RunCreated).
   */
  async start(): Promise<string> {
    const run = this.claimed.payload;
    const { attempt } = this.claimed;
    const startedAt = new Date().toISOString();
    const events = decideRunLifecycle({ kind: 'start', attempt, startedAt }, this.lifecycle);
    await this.writer.append(withLifecycleIds(run.run_id, events));
    this.started = startedAt;
    this.lifecycle = events.reduce(evolveRunLifecycle, this.lifecycle);
    this.logs.observer.runStarted(run, attempt, startedAt);
    if (attempt > 1) await this.writer.emit('metadata', { run_id: run.run_id, attempt });
    return startedAt;
  }

  /** Queues one stream chunk (see RunStepWriter.emit). */
  emit(event: string, data: JsonValue): Promise<void> {
    return this.writer.emit(event, data);
  }

  /** Resolves when every chunk emitted is in the log. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Records how the attempt ended; returns the outcome as observers hear it. */
  async finish(ending: AttemptEnding): Promise<RunFinishedData> {
    const run = this.claimed.payload;
    const finished: RunFinishedData = {
      run_id: run.run_id,
      thread_id: run.thread_id,
      status: ending.status,
      attempt: this.claimed.attempt,
      error: ending.error,
      state_captured: ending.state !== undefined,
      ...(ending.state ?? { values: null, next: [], interrupts: {} }),
      values_extends: null,
      temporary: run.kwargs.temporary,
      finished_at: new Date().toISOString(),
    };
    // The log keeps the final values as what changed since the run's last values chunk.
    const { chain, ...storedValues } = this.writer.finalValues(finished.values);
    await recordRunFinished(
      (events) => this.writer.append(events),
      this.lifecycle,
      { created: run, finished, startedAt: this.started ?? null, rolledBack: ending.rolledBack },
      this.logs.observer,
      { ...finished, ...storedValues },
    );
    this.logs.finishedValues.remember(run.thread_id, run.run_id, finished.values, chain);
    return finished;
  }
}
