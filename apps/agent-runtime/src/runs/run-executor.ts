import { Logger } from '@nestjs/common';
import type { EventStore, JsonObject } from '#libs/event-store';
import type { Application } from '../application/application.js';
import { checkpointStreamOf } from '../checkpoints/index.js';
import { streamGraphRun, type StreamMode } from '../execution/graph-stream.js';
import { withStreamTransformers } from '../execution/stream-transformers.js';
import { FinalStateTracker } from '../execution/final-state.js';
import { summarizeState, type StateSnapshotLike } from '../threads/thread-state.resource.js';
import { withLifecycleIds } from './run-event-ids.js';
import { decideRunLifecycle, evolveRunLifecycle, type RunLifecycle } from './run.decider.js';
import { rollBackThread } from './run-rollback.js';
import { runInRequest } from '#libs/logging';
import {
  ensureRunCreated,
  NoRunObserver,
  recordRunFinished,
  runProgress,
  type RunProgress,
  type RunObserver,
} from './run-log.js';
import type { ClaimedRun, RunQueue } from '../run-records/run-queue.js';
import type { RunSignals } from './run-signals.js';
import { RunStepWriter } from './run-step-writer.js';
import { FinishedValuesMemory } from './finished-values-memory.js';
import type { RunFinishedData } from '../run-records/run.events.js';
import { deliverWebhook } from './webhook.js';
import { callerConfigurable } from '../auth/run-caller.js';

export interface RunExecutorOptions {
  readonly workerId: string;
  readonly leaseSeconds: number;
  readonly maxAttempts: number;
  readonly langgraphVersion: string;
  /** Seconds an attempt may run when the run names no `timeout_seconds`. */
  readonly defaultTimeoutSeconds: number;
}

/** Why a run stopped before its graph did. */
type StopReason =
  | { readonly kind: 'cancel'; readonly action: 'interrupt' | 'rollback' }
  | { readonly kind: 'lost_lease' }
  | { readonly kind: 'shutdown' }
  | { readonly kind: 'timeout'; readonly seconds: number };

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

class RunStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(`run stopped: ${reason.kind}`);
  }
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
    const stop = new AbortController();
    const halt = (reason: StopReason): void => {
      if (!stop.signal.aborted) stop.abort(new RunStopped(reason));
    };
    const onShutdown = (): void => {
      halt({ kind: 'shutdown' });
    };
    shutdown.addEventListener('abort', onShutdown, { once: true });
    const unregister = this.signals.registerRunning(run.run_id, (action) => {
      halt({ kind: 'cancel', action });
    });
    const heartbeat = setInterval(
      () => void this.beat(claimed, halt),
      (this.options.leaseSeconds * 1000) / 3,
    );
    const timeoutSeconds = run.timeout_seconds ?? this.options.defaultTimeoutSeconds;
    const deadline = setTimeout(() => {
      halt({ kind: 'timeout', seconds: timeoutSeconds });
    }, timeoutSeconds * 1000);
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
      // Nobody else writes the thread's checkpoints while its run holds it: after the run's
      // first read of them, the state it ends with is read from what it wrote.
      const { outcome, state } = await this.application.owningCheckpoints(
        run.graph_id,
        run.thread_id,
        async () => {
          const ended = await this.attempt(claimed, writer, stop.signal);
          if (ended.rollBack) {
            await rollBackThread(this.application, run.graph_id, run.thread_id, run.run_id);
          }
          if (claimed.attempt === 1 && claimed.cancelAction)
            return { outcome: ended, state: undefined };
          const streamed = ended.rollBack ? undefined : ended.state;
          return { outcome: ended, state: streamed ?? (await this.threadState(claimed)) };
        },
      );
      return await this.finish(claimed, writer, lifecycle, { outcome, state, startedAt });
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
      clearInterval(heartbeat);
      clearTimeout(deadline);
      unregister();
      shutdown.removeEventListener('abort', onShutdown);
    }
  }

  /** Runs the graph; resolves with how the run ended, or rejects when the run must not be finished here. */
  private async attempt(
    claimed: ClaimedRun,
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
      const config = this.graphConfig(claimed);
      const graph = await this.application.graph(run.graph_id, config as never);
      const createCommand = await this.application.createCommand(run.graph_id);
      const streamModes = run.kwargs.stream_mode as StreamMode[];
      const finalState = new FinalStateTracker();
      const graphChunks = streamGraphRun({
        graph,
        input: run.kwargs.input,
        command: run.command,
        createCommand,
        config,
        context: run.context,
        streamModes,
        subgraphs: run.stream_subgraphs,
        interruptBefore: run.kwargs.interrupt_before ?? undefined,
        interruptAfter: run.kwargs.interrupt_after ?? undefined,
        durability: run.durability ?? undefined,
        signal,
        finalState,
      });
      const chunks = withStreamTransformers(graph, streamModes.includes('custom'), graphChunks);
      const emitAll = async (): Promise<void> => {
        for await (const chunk of chunks) await writer.emit(chunk.event, chunk.data);
      };
      // LangGraph's default: a step does not wait for the checkpoint of the one before.
      if ((run.durability ?? 'async') === 'async') {
        await this.application.trailingCheckpoints(run.graph_id, run.thread_id, emitAll);
      } else {
        await emitAll();
      }
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

  /** The run's recorded config, with the user it runs for (kept with the queued run only). */
  private graphConfig({ payload: run, attempt, caller }: ClaimedRun): JsonObject {
    const config = run.kwargs.config;
    const configurable = {
      ...(config.configurable as JsonObject),
      ...callerConfigurable(caller),
    };
    if (configurable.checkpoint_id === null) delete configurable.checkpoint_id;
    return {
      ...config,
      configurable,
      metadata: {
        ...(config.metadata as JsonObject),
        graph_id: run.graph_id,
        assistant_id: run.assistant_id,
        run_attempt: attempt,
        langgraph_version: this.options.langgraphVersion,
        langgraph_plan: 'developer',
        langgraph_host: 'self-hosted',
        thread_id: run.thread_id,
        run_id: run.run_id,
      },
    };
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
        {
          run_id: run.run_id,
          thread_id: run.thread_id,
          assistant_id: run.assistant_id,
          created_at: run.created_at,
          metadata: run.metadata,
          kwargs: run.kwargs,
          multitask_strategy: run.multitask_strategy,
          status: outcome.status,
          error: outcome.error,
          values: finished.values,
          run_started_at: startedAt,
          run_ended_at: finished.finished_at,
          webhook_sent_at: new Date().toISOString(),
        },
        this.logger,
      );
    }
    return end;
  }

  private async threadState(claimed: ClaimedRun): Promise<StateSnapshotLike | undefined> {
    const run = claimed.payload;
    try {
      // A factory builds the graph of the run's config: the one that wrote the checkpoints.
      const graph = await this.application.graph(run.graph_id, this.graphConfig(claimed) as never);
      return (await graph.getState({
        configurable: { thread_id: run.thread_id },
      })) as StateSnapshotLike;
    } catch (error) {
      this.logger.warn(
        `The state of thread ${run.thread_id} could not be read: ${describe(error)}`,
      );
      return undefined;
    }
  }

  private async beat(claimed: ClaimedRun, halt: (reason: StopReason) => void): Promise<void> {
    try {
      const lease = await this.queue.heartbeat(
        claimed,
        this.options.workerId,
        this.options.leaseSeconds,
      );
      if (!lease.held) halt({ kind: 'lost_lease' });
      else if (lease.cancelAction) halt({ kind: 'cancel', action: lease.cancelAction });
    } catch (error) {
      this.logger.warn(`Heartbeat of run ${claimed.runId} failed: ${describe(error)}`);
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
