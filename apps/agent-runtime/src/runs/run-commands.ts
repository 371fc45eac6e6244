import { Inject, Injectable } from '@nestjs/common';
import { domainEventOf, notFound } from '#libs/domain';
import { EventStore, uuidv7 } from '#libs/event-store';
import { AssistantsService } from '../assistants/assistants.service.js';
import { queuedCallerOf, type RunCaller } from '../auth/run-caller.js';
import { isUuid } from '../common/uuid5.js';
import { withLifecycleIds } from '../run-records/run-event-ids.js';
import { ensureRunCreated, recordRunFinished } from '../run-records/run-lifecycle-log.js';
import { RunObserver } from '../run-records/run-observers.js';
import { RunQueue, type QueuedRunStatus } from '../run-records/run-queue.js';
import { RunSignals } from '../run-records/run-signals.js';
import {
  decideRunLifecycle,
  foldRunLifecycle,
  lifecycleFromLast,
} from '../run-records/run.decider.js';
import {
  runStream,
  type RunCreatedData,
  type RunEvent,
  type RunFinishedData,
} from '../run-records/run.events.js';
import { ThreadCommands } from '../threads/thread-commands.js';
import { ThreadsService } from '../threads/threads.service.js';
import type { CreateRunDto } from './create-run/create-run.dto.js';
import { runCreatedDataOf } from './run-created-data.js';
import { createdRunResource, type Run } from './run.resource.js';
import { RunsService } from './runs.service.js';

/** A run whose identity its maker chose (a cron's tick): created at most once, whoever asks. */
export interface RunIdentity {
  readonly runId: string;
  /** The thread of a stateless run. */
  readonly threadId: string;
}

export interface CreatedRun {
  readonly data: RunCreatedData;
  readonly resource: Run;
}

/**
 * The runs' command side, for the handlers of their commands and the features that make a run
 * under an id of their own (a cron's tick, an A2A message): creation through the queue, cancel,
 * delete.
 */
@Injectable()
export class RunCommands {
  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(ThreadCommands) private readonly threadCommands: ThreadCommands,
    @Inject(RunQueue) private readonly queue: RunQueue,
    @Inject(RunSignals) private readonly signals: RunSignals,
    @Inject(RunObserver) private readonly runObserver: RunObserver,
  ) {}

  /**
   * Creates a run on a thread, or with `threadId` null a stateless one on a temporary thread;
   * `caller`: the user of the application's auth it runs for.
   */
  async create(
    threadId: string | null,
    body: CreateRunDto,
    now: string,
    caller?: RunCaller,
  ): Promise<CreatedRun> {
    const created = await this.createOnce(threadId, body, now, undefined, caller);
    if (!created) throw new Error('a run without a given identity is always created');
    return created;
  }

  /**
   * Creates the run unless a run of `identity` was created before (then undefined): the run of a
   * cron's tick is made once, however many replicas, retries and restarts ask for it.
   */
  async createOnce(
    threadId: string | null,
    body: CreateRunDto,
    now: string,
    identity: RunIdentity | undefined,
    caller?: RunCaller,
  ): Promise<CreatedRun | undefined> {
    // Both reads at once; the assistant's answer still comes first, and a thread is made only
    // for a run whose assistant exists.
    const threadFound = threadId === null ? undefined : this.threads.exists(threadId);
    threadFound?.catch(() => undefined);
    const assistant = await this.assistants.resolve(body.assistant_id);
    if (threadId !== null) {
      const found = (await threadFound) ?? false;
      await this.requireThread(threadId, found, body.if_not_exists ?? 'reject', now);
    }
    const runId = identity?.runId ?? uuidv7();
    const runThreadId = threadId ?? identity?.threadId ?? uuidv7();
    const temporary = threadId === null && body.on_completion !== 'keep';
    if (threadId === null && !temporary) {
      await this.threadCommands.create(runThreadId, {}, identity ? 'do_nothing' : 'raise', now);
    }
    const data = runCreatedDataOf(
      body,
      assistant,
      { runId, threadId: runThreadId, temporary, now },
      caller,
    );
    const cancelled = await this.queue.enqueue(data, data.multitask_strategy, {
      once: identity !== undefined,
      caller: queuedCallerOf(caller),
    });
    if (!cancelled) return undefined;
    const progress = await ensureRunCreated(this.store, data);
    this.signals.wakeWorkers(progress && { runId: data.run_id, progress });
    for (const other of cancelled) {
      this.signals.cancelIfRunningHere(
        other,
        data.multitask_strategy === 'rollback' ? 'rollback' : 'interrupt',
      );
    }
    return { data, resource: createdRunResource(data) };
  }

  /** Stateless runs, one after another, each validated already. */
  async createBatch(
    payloads: readonly CreateRunDto[],
    now: string,
    caller?: RunCaller,
  ): Promise<Run[]> {
    const created: Run[] = [];
    for (const payload of payloads) {
      created.push((await this.create(null, payload, now, caller)).resource);
    }
    return created;
  }

  async cancel(
    threadId: string,
    runId: string,
    action: 'interrupt' | 'rollback',
    now: string,
    /** Resolve only once the run has ended. */
    wait = false,
  ): Promise<void> {
    await this.runs.requireRunOfThread(threadId, runId);
    const outcome = await this.queue.cancel(runId, action, (payload) =>
      this.recordCancelledWhilePending(payload, action, now),
    );
    if (outcome.kind === 'signalled_running') this.signals.cancelIfRunningHere(runId, action);
    if (wait) await this.runs.waitForFinish(runId);
  }

  /** Records the end of a run cancelled before any worker started it. */
  private async recordCancelledWhilePending(
    created: RunCreatedData,
    action: 'interrupt' | 'rollback',
    now: string,
  ): Promise<void> {
    const runId = created.run_id;
    const finished: RunFinishedData = {
      run_id: runId,
      thread_id: created.thread_id,
      status: 'interrupted',
      attempt: 0,
      error: null,
      state_captured: false,
      values: null,
      values_extends: null,
      next: [],
      interrupts: {},
      temporary: created.kwargs.temporary,
      finished_at: now,
    };
    await ensureRunCreated(this.store, created);
    const stored = await this.store.readStream(runStream(runId));
    await recordRunFinished(
      (events) =>
        this.store.append(runStream(runId), events, {
          expectedPosition: stored.at(-1)?.streamPosition ?? 'no_stream',
        }),
      foldRunLifecycle(stored),
      { created, finished, startedAt: null, rolledBack: action === 'rollback' },
      this.runObserver,
    );
  }

  /** Removes a finished run from its thread's runs; its events stay in the log. */
  async delete(threadId: string, runId: string, now: string): Promise<void> {
    await this.runs.requireRunOfThread(threadId, runId);
    const [last] = await this.store.readStream(runStream(runId), {
      direction: 'backwards',
      maxCount: 1,
    });
    const lifecycle = lifecycleFromLast(last && domainEventOf<RunEvent>(last));
    const events = decideRunLifecycle({ kind: 'delete', at: now }, lifecycle);
    await this.store.append(runStream(runId), withLifecycleIds(runId, events), {
      expectedPosition: last?.streamPosition ?? 'no_stream',
    });
  }

  /** Cancels the named runs, or every run of a thread, or every run waiting or running. */
  async cancelMany(
    selection: { threadId?: string; runIds?: readonly string[]; status?: QueuedRunStatus | 'all' },
    action: 'interrupt' | 'rollback',
    now: string,
  ): Promise<void> {
    const queued = await this.queue.queuedRuns({
      threadId: selection.threadId,
      runIds: selection.runIds,
      status: selection.status ?? 'all',
    });
    for (const run of queued) await this.cancel(run.threadId, run.runId, action, now);
  }

  private async requireThread(
    threadId: string,
    found: boolean,
    ifNotExists: 'reject' | 'create',
    now: string,
  ): Promise<void> {
    if (found) return;
    if (ifNotExists === 'create' && isUuid(threadId)) {
      await this.threadCommands.create(threadId, {}, 'do_nothing', now);
      return;
    }
    throw notFound(`Thread ${threadId} not found`);
  }
}
