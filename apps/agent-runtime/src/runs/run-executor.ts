import { Logger } from '@nestjs/common';
import type { EventStore, JsonObject } from '#libs/event-store';
import type { Application } from '../application/application.js';
import { checkpointStreamOf } from '../checkpoints/index.js';
import { GraphNotBound, RunGraph } from '../application/run-graph.js';
import { FinalStateTracker } from '../execution/final-state.js';
import { summarizeState, type StateSnapshotLike } from '../threads/thread-state.resource.js';
import { withLifecycleIds } from '../run-records/run-event-ids.js';
import {
  decideRunLifecycle,
  evolveRunLifecycle,
  type RunLifecycle,
} from '../run-records/run.decider.js';
import { runGraphConfig } from './run-graph-config.js';
import { RunStopped, RunWatch } from './run-watch.js';
import { streamRunEvents } from './run-events-stream.js';
import { runInRequest } from '#libs/logging';
import { ensureRunCreated, recordRunFinished } from '../run-records/run-lifecycle-log.js';
import { NoRunObserver, type RunObserver } from '../run-records/run-observers.js';
import { runProgress, type RunProgress } from '../run-records/run-progress.js';
import type { ClaimedRun, RunQueue } from '../run-records/run-queue.js';
import type { RunSignals } from '../run-records/run-signals.js';
import { RunStepWriter } from '../run-records/run-step-writer.js';
import { FinishedValuesMemory } from '../run-records/finished-values-memory.js';
import type { RunFinishedData } from '../run-records/run.events.js';
import { deliverWebhook, finishedRunWebhookBody } from './webhook.js';

export interface RunExecutorOptions {
  readonly workerId: string;
  readonly leaseSeconds: number;
  readonly maxAttempts: number;
  readonly langgraphVersion: string;
  /** Seconds an attempt may run when the run names no `timeout_seconds`. */
  readonly defaultTimeoutSeconds: number;
}

/** How a run left the queue: whether other runs were waiting in it then. */
export interface RunEnd {
  readonly othersPending: boolean;
}

/** When it is not known, another run may be waiting. */
export const MAYBE_OTHERS_PENDING: RunEnd = { othersPending: true };

interface Outcome {
  readonly status: RunFinishedData['status'];
  readonly error: JsonObject | null;
  /** Cancelled with `rollback`: the thread goes back to its state before the run. */
  readonly rollBack?: boolean;
  /** The state the run ended with, when its own stream told it whole. */
  readonly state?: StateSnapshotLike;
}

/**
 * Executes one claimed run: numbers and appends every streamed chunk, keeps the lease alive,
 * stops when cancelled or when another worker has taken the run over, and records the outcome.
 */
export class RunExecutor {
  private readonly logger = new Logger('runs');

  constructor(
    private readonly store: EventStore,
    private readonly application: Application,
    private readonly queue: RunQueue,
    private readonly signals: RunSignals,
    private readonly options: RunExecutorOptions,
    private readonly runObserver: RunObserver = new NoRunObserver(),
    private readonly finishedValues = new FinishedValuesMemory(),
  ) {}

  async execute(claimed: ClaimedRun, shutdown: AbortSignal): Promise<RunEnd> {
    const run = claimed.payload;
    // Recorded by this process and not attempted before: nothing else has written its stream.
    const recorded = this.signals.takeRecorded(run.run_id);
    let progress =
      claimed.attempt === 1 && recorded ? recorded : await runProgress(this.store, run.run_id);
    if (progress.position === -1) {
      // The process that queued the run died before it recorded it.
      progress =
        (await ensureRunCreated(this.store, run)) ?? (await runProgress(this.store, run.run_id));
    }
    // What the run writes and logs names the request that created it.
    const { requestId } = progress;
    const work = (): Promise<RunEnd> => this.executeFrom(claimed, progress, shutdown);
    return requestId ? runInRequest(requestId, work) : work();
  }

  private async executeFrom(
    claimed: ClaimedRun,
    progress: RunProgress,
    shutdown: AbortSignal,
  ): Promise<RunEnd> {
    const run = claimed.payload;
    const writer = new RunStepWriter(
      this.store,
      run.run_id,
      progress.position,
      progress.nextSeq,
      this.finishedValues.of(run.thread_id),
    );
    const watch = new RunWatch(claimed, shutdown, {
      ...this.options,
      queue: this.queue,
      signals: this.signals,
      logger: this.logger,
    });
    const startedAt = new Date().toISOString();
    try {
      if (progress.lifecycle.phase === 'finished' || progress.lifecycle.phase === 'deleted') {
        // Its outcome is in the log; only the queue row outlived it.
        return await this.queue.complete(claimed, this.options.workerId);
      }
      const started = decideRunLifecycle(
        { kind: 'start', attempt: claimed.attempt, startedAt },
        progress.lifecycle,
      );
      await writer.append(withLifecycleIds(run.run_id, started));
      this.runObserver.runStarted(run, claimed.attempt, startedAt);
      const lifecycle = started.reduce(evolveRunLifecycle, progress.lifecycle);
      const bound = await this.application
        .bindRun(run.graph_id, runGraphConfig(claimed, this.options.langgraphVersion) as never)
        .catch((error: unknown) => new GraphNotBound(error));
      const ended = await this.runOn(claimed, bound, writer, watch.signal);
      return await this.finish(claimed, writer, lifecycle, { ...ended, startedAt });
    } catch (error) {
      const reason = error instanceof RunStopped ? error.reason : undefined;
      if (reason?.kind === 'lost_lease' || reason?.kind === 'shutdown') {
        this.logger.warn(`Run ${run.run_id} attempt ${claimed.attempt} stopped: ${reason.kind}`);
        if (reason.kind === 'shutdown') await this.queue.release(claimed, this.options.workerId);
        return MAYBE_OTHERS_PENDING;
      }
      this.logger.error(`Run ${run.run_id} could not be recorded: ${describe(error)}`);
      return MAYBE_OTHERS_PENDING;
    } finally {
      watch.end();
    }
  }

  /**
   * The attempt on the thread, as the only writer of its checkpoints: after the run's first read
   * of them, the state it ends with is read from what it wrote.
   */
  private async runOn(
    claimed: ClaimedRun,
    bound: RunGraph | GraphNotBound,
    writer: RunStepWriter,
    signal: AbortSignal,
  ): Promise<{ outcome: Outcome; state: StateSnapshotLike | undefined }> {
    const run = claimed.payload;
    const owned = <T>(work: () => Promise<T>): Promise<T> =>
      bound instanceof RunGraph ? bound.owning(run.thread_id, work) : work();
    return owned(async () => {
      const outcome = await this.attempt(claimed, bound, writer, signal);
      if (outcome.rollBack && bound instanceof RunGraph) {
        await bound.rollBack(run.thread_id, run.run_id);
      }
      if (claimed.attempt === 1 && claimed.cancelAction) return { outcome, state: undefined };
      const streamed = outcome.rollBack ? undefined : outcome.state;
      return { outcome, state: streamed ?? (await this.threadState(run, bound)) };
    });
  }

  /** Runs the graph; resolves with how the run ended, or rejects when the run must not be finished here. */
  private async attempt(
    claimed: ClaimedRun,
    bound: RunGraph | GraphNotBound,
    writer: RunStepWriter,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const run = claimed.payload;
    // Attempt 1's metadata came with RunCreated; a retry announces itself.
    if (claimed.attempt > 1)
      await writer.emit('metadata', { run_id: run.run_id, attempt: claimed.attempt });
    if (claimed.cancelAction) {
      return { status: 'interrupted', error: null, rollBack: claimed.cancelAction === 'rollback' };
    }
    if (claimed.attempt > this.options.maxAttempts) {
      const error = {
        error: 'RunAttemptsExceeded',
        message: `Run ${run.run_id} exceeded ${this.options.maxAttempts} attempts`,
      };
      await writer.emit('error', error);
      return { status: 'error', error };
    }
    try {
      if (bound instanceof GraphNotBound) throw bound.cause;
      const graph = await bound.graph();
      const finalState = new FinalStateTracker();
      const chunks = streamRunEvents(run, bound, graph, signal, finalState);
      const emitAll = async (): Promise<void> => {
        for await (const chunk of chunks) await writer.emit(chunk.event, chunk.data);
      };
      // LangGraph's default: a step does not wait for the checkpoint of the one before.
      if ((run.durability ?? 'async') === 'async') await bound.trailing(run.thread_id, emitAll);
      else await emitAll();
      await writer.flush();
      return { status: 'success', error: null, state: finalState.snapshot() };
    } catch (error) {
      return await this.failed(error, writer, signal);
    }
  }

  /** How an attempt ended that its graph did not finish. */
  private async failed(
    error: unknown,
    writer: RunStepWriter,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const reason = signal.reason instanceof RunStopped ? signal.reason.reason : undefined;
    if (reason?.kind === 'timeout') {
      const failure = {
        error: 'TimeoutError',
        message: `The run took longer than its timeout of ${reason.seconds} s`,
      };
      await writer.emit('error', failure);
      return { status: 'timeout', error: failure };
    }
    if (reason && reason.kind !== 'cancel') throw signal.reason;
    if (reason?.kind === 'cancel') {
      return { status: 'interrupted', error: null, rollBack: reason.action === 'rollback' };
    }
    const failure = {
      error: error instanceof Error ? error.name : 'Error',
      message: describe(error),
    };
    await writer.emit('error', failure);
    return { status: 'error', error: failure };
  }

  /** Records how the run ended (`state`: the thread's state after it, when it could be read). */
  private async finish(
    claimed: ClaimedRun,
    writer: RunStepWriter,
    lifecycle: RunLifecycle,
    ending: {
      readonly outcome: Outcome;
      readonly state: StateSnapshotLike | undefined;
      readonly startedAt: string;
    },
  ): Promise<RunEnd> {
    const run = claimed.payload;
    const { outcome, state, startedAt } = ending;
    const finished: RunFinishedData = {
      run_id: run.run_id,
      thread_id: run.thread_id,
      status: outcome.status,
      attempt: claimed.attempt,
      error: outcome.error,
      state_captured: state !== undefined,
      ...(state ? summarizeState(state) : { values: null, next: [], interrupts: {} }),
      values_extends: null,
      temporary: run.kwargs.temporary,
      finished_at: new Date().toISOString(),
    };
    // The log keeps the final values as what changed since the run's last values chunk.
    const { chain, ...storedValues } = writer.finalValues(finished.values);
    await recordRunFinished(
      (events) => writer.append(events),
      lifecycle,
      { created: run, finished, startedAt, rolledBack: outcome.rollBack ?? false },
      this.runObserver,
      { ...finished, ...storedValues },
    );
    this.finishedValues.remember(run.thread_id, run.run_id, finished.values, chain);
    const end = await this.queue.complete(claimed, this.options.workerId);
    if (run.kwargs.temporary) await this.store.deleteStream(checkpointStreamOf(run.thread_id));
    if (run.kwargs.webhook) {
      void deliverWebhook(
        run.kwargs.webhook,
        finishedRunWebhookBody(run, finished, startedAt),
        this.logger,
      );
    }
    return end;
  }

  /** The thread's state after the run, read back from its checkpoints. */
  private async threadState(
    run: ClaimedRun['payload'],
    bound: RunGraph | GraphNotBound,
  ): Promise<StateSnapshotLike | undefined> {
    if (bound instanceof GraphNotBound) return undefined;
    try {
      return (await bound.state(run.thread_id)) as StateSnapshotLike;
    } catch (error) {
      this.logger.warn(
        `The state of thread ${run.thread_id} could not be read: ${describe(error)}`,
      );
      return undefined;
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
