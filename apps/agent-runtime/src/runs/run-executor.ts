import { Logger } from '@nestjs/common';
import type { EventStore, JsonObject } from '#libs/event-store';
import type { Application } from '../application/application.js';
import { checkpointStreamOf } from '../checkpoints/index.js';
import { UnboundRunGraph, type RunGraph } from '../application/run-graph.js';
import { FinalStateTracker } from '../execution/final-state.js';
import { summarizeState, type StateSnapshotLike } from '../threads/thread-state.resource.js';
import { runGraphConfig } from './run-graph-config.js';
import { RunStopped, RunWatch } from './run-watch.js';
import { streamRunEvents } from './run-events-stream.js';
import {
  RunAttemptLog,
  type AttemptEnding,
  type RunAttemptLogs,
} from '../run-records/run-attempt-log.js';
import { NoRunObserver, type RunObserver } from '../run-records/run-observers.js';
import type { ClaimedRun, RunQueue } from '../run-records/run-queue.js';
import type { RunSignals } from '../run-records/run-signals.js';
import {
  finishedValuesMemoryOf,
  type FinishedValuesMemory,
} from '../run-records/finished-values-memory.js';
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
 * The run's log and its graph are bound once for the attempt and handed on.
 */
export class RunExecutor {
  private readonly logger = new Logger('runs');
  private readonly logs: RunAttemptLogs;

  constructor(
    private readonly store: EventStore,
    private readonly application: Application,
    private readonly queue: RunQueue,
    private readonly signals: RunSignals,
    private readonly options: RunExecutorOptions,
    observer: RunObserver = new NoRunObserver(),
    finishedValues: FinishedValuesMemory = finishedValuesMemoryOf(store),
  ) {
    this.logs = { store, signals, observer, finishedValues };
  }

  async execute(claimed: ClaimedRun, shutdown: AbortSignal): Promise<RunEnd> {
    const log = await RunAttemptLog.open(this.logs, claimed);
    return log.inRequest(() => this.executeOn(claimed, log, shutdown));
  }

  private async executeOn(
    claimed: ClaimedRun,
    log: RunAttemptLog,
    shutdown: AbortSignal,
  ): Promise<RunEnd> {
    const run = claimed.payload;
    const { workerId } = this.options;
    const watch = new RunWatch(claimed, shutdown, {
      ...this.options,
      queue: this.queue,
      signals: this.signals,
      logger: this.logger,
    });
    try {
      // Its outcome is in the log; only the queue row outlived it.
      if (log.ended) return await this.queue.complete(claimed, workerId);
      const startedAt = await log.start();
      const bound: RunGraph = await this.application
        .bindRun(run.graph_id, runGraphConfig(claimed, this.options.langgraphVersion) as never)
        .catch((error: unknown) => new UnboundRunGraph(error));
      const ending = await bound.owning(run.thread_id, () =>
        this.attempt(claimed, bound, log, watch.signal),
      );
      const finished = await log.finish(ending);
      const end = await this.queue.complete(claimed, workerId);
      if (run.kwargs.temporary) await this.store.deleteStream(checkpointStreamOf(run.thread_id));
      if (run.kwargs.webhook) {
        const body = finishedRunWebhookBody(run, finished, startedAt);
        void deliverWebhook(run.kwargs.webhook, body, this.logger);
      }
      return end;
    } catch (error) {
      const reason = error instanceof RunStopped ? error.reason : undefined;
      if (reason?.kind === 'lost_lease' || reason?.kind === 'shutdown') {
        this.logger.warn(`Run ${run.run_id} attempt ${claimed.attempt} stopped: ${reason.kind}`);
        if (reason.kind === 'shutdown') await this.queue.release(claimed, workerId);
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
  private async attempt(
    claimed: ClaimedRun,
    bound: RunGraph,
    log: RunAttemptLog,
    signal: AbortSignal,
  ): Promise<AttemptEnding> {
    const run = claimed.payload;
    const outcome = await this.outcome(claimed, bound, log, signal);
    const rolledBack = outcome.rollBack ?? false;
    if (rolledBack) await bound.rollBack(run.thread_id, run.run_id);
    // Cancelled before its first attempt started: the thread is as it was.
    const untouched = claimed.attempt === 1 && claimed.cancelAction;
    const streamed = rolledBack ? undefined : outcome.state;
    const state = untouched
      ? undefined
      : (streamed ?? ((await bound.finalState(run.thread_id)) as StateSnapshotLike | undefined));
    const { status, error } = outcome;
    return { status, error, rolledBack, state: state && summarizeState(state) };
  }

  /** Runs the graph; resolves with how the run ended, or rejects when the run must not be finished here. */
  private async outcome(
    claimed: ClaimedRun,
    bound: RunGraph,
    log: RunAttemptLog,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const run = claimed.payload;
    if (claimed.cancelAction) {
      return { status: 'interrupted', error: null, rollBack: claimed.cancelAction === 'rollback' };
    }
    if (claimed.attempt > this.options.maxAttempts) {
      const error = {
        error: 'RunAttemptsExceeded',
        message: `Run ${run.run_id} exceeded ${this.options.maxAttempts} attempts`,
      };
      await log.emit('error', error);
      return { status: 'error', error };
    }
    try {
      const finalState = new FinalStateTracker();
      const chunks = streamRunEvents(run, await bound.built(), signal, finalState);
      const emitAll = async (): Promise<void> => {
        for await (const chunk of chunks) await log.emit(chunk.event, chunk.data);
      };
      // LangGraph's default: a step does not wait for the checkpoint of the one before.
      if ((run.durability ?? 'async') === 'async') await bound.trailing(run.thread_id, emitAll);
      else await emitAll();
      await log.flush();
      return { status: 'success', error: null, state: finalState.snapshot() };
    } catch (error) {
      return await this.failed(error, log, signal);
    }
  }

  /** How an attempt ended that its graph did not finish. */
  private async failed(error: unknown, log: RunAttemptLog, signal: AbortSignal): Promise<Outcome> {
    const reason = signal.reason instanceof RunStopped ? signal.reason.reason : undefined;
    if (reason?.kind === 'timeout') {
      const failure = {
        error: 'TimeoutError',
        message: `The run took longer than its timeout of ${reason.seconds} s`,
      };
      await log.emit('error', failure);
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
    await log.emit('error', failure);
    return { status: 'error', error: failure };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
