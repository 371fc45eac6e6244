import { FinishedValuesMemory } from '../run-records/finished-values-memory.js';
import { ValuesChunkExpander } from '../run-records/values-chunk-expander.js';
import { domainEventOf, notFound } from '#libs/domain';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  EventStore,
  type RecordedEvent,
  uuidv7,
  type JsonObject,
  type JsonValue,
} from '#libs/event-store';
import { AssistantsService } from '../assistants/assistants.service.js';
import { selectFields } from '../common/select-fields.js';
import { isUuid } from '../common/uuid5.js';
import { ReadModelFreshness } from '#libs/persistence';
import { ThreadsService } from '../threads/threads.service.js';
import { RunEntity } from '../run-records/run.entity.js';
import { withLifecycleIds } from '../run-records/run-event-ids.js';
import {
  decideRunLifecycle,
  foldRunLifecycle,
  lifecycleFromLast,
} from '../run-records/run.decider.js';
import { ensureRunCreated, recordRunFinished } from '../run-records/run-lifecycle-log.js';
import { RunObserver } from '../run-records/run-observers.js';
import { type RunProgress } from '../run-records/run-progress.js';
import { createdRunResource, runResource, type Run } from './run.resource.js';
import { RunQueue, type QueuedRunStatus } from '../run-records/run-queue.js';
import { RunSignals } from '../run-records/run-signals.js';
import {
  FIRST_CHUNK_POSITION,
  runStream,
  type RunCreatedData,
  type RunEvent,
  type RunFinishedData,
} from '../run-records/run.events.js';
import type { CreateRunDto, ListRunsDto } from './runs.dto.js';
import { queuedCallerOf, type RunCaller } from '../auth/run-caller.js';
import { runCreatedDataOf } from './run-created-data.js';

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

/** What join and wait answer: the thread's values after the run, or its error. */
export type RunResult = JsonValue | { readonly __error__: JsonObject | null };

/** What a run's waiter looks for: the chunks its stream fills with need not be read. */
const RUN_FINISHED_ONLY: ReadonlySet<string> = new Set(['RunFinished']);

@Injectable()
export class RunsService {
  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(RunQueue) private readonly queue: RunQueue,
    @Inject(RunSignals) private readonly signals: RunSignals,
    @Inject(RunObserver) private readonly runObserver: RunObserver,
    @Inject(FinishedValuesMemory) private readonly finishedValues: FinishedValuesMemory,
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
      await this.threads.create(runThreadId, {}, identity ? 'do_nothing' : 'raise', now);
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
    const progress = await this.recordCreated(data);
    this.signals.wakeWorkers(progress && { runId: data.run_id, progress });
    for (const other of cancelled) {
      this.signals.cancelIfRunningHere(
        other,
        data.multitask_strategy === 'rollback' ? 'rollback' : 'interrupt',
      );
    }
    return { data, resource: createdRunResource(data) };
  }

  recordCreated(data: RunCreatedData): Promise<RunProgress | undefined> {
    return ensureRunCreated(this.store, data);
  }

  async get(threadId: string, runId: string): Promise<Run> {
    if (!isUuid(runId)) throw notFound('Run not found');
    await this.freshness.catchUp('runs');
    const row = await this.dataSource
      .getRepository(RunEntity)
      .createQueryBuilder('r')
      .where('r.run_id = :runId', { runId })
      .getOne();
    if (!row || row.thread_id !== threadId) throw notFound('Run not found');
    return runResource(row);
  }

  async list(threadId: string, query: ListRunsDto): Promise<Partial<Run>[]> {
    await this.threads.row(threadId);
    await this.freshness.catchUp('runs');
    const builder = this.dataSource
      .getRepository(RunEntity)
      .createQueryBuilder('r')
      .where('r.thread_id = :threadId', { threadId });
    if (query.status) builder.andWhere('r.status = :status', { status: query.status });
    const rows = await builder
      .orderBy('r.created_at', 'DESC')
      .offset(query.offset ?? 0)
      .limit(query.limit ?? 10)
      .getMany();
    return rows.map((row) => selectFields(runResource(row), query.select));
  }

  /**
   * Resolves when the run has finished, with its outcome. For a run whose creation the caller
   * has just recorded (`justCreated`), its stream is followed from its first chunk without a look
   * at its end: its outcome, if it came already, is read with what follows.
   */
  async waitForFinish(
    runId: string,
    options: { readonly signal?: AbortSignal; readonly justCreated?: boolean } = {},
  ): Promise<RunFinishedData> {
    const { signal, justCreated = false } = options;
    const stream = runStream(runId);
    let afterPosition = FIRST_CHUNK_POSITION;
    if (!justCreated) {
      const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
      if (!last || last.type === 'RunDeleted') throw notFound('Run not found');
      if (last.type === 'RunFinished') return this.wholeOutcome(last);
      afterPosition = last.streamPosition;
    }
    const subscription = this.store.subscribeToStream(stream, {
      afterPosition,
      onlyTypes: RUN_FINISHED_ONLY,
    });
    const stop = (): void => void subscription.close();
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) stop();
    try {
      for await (const event of subscription) {
        if (event.type === 'RunFinished') return await this.wholeOutcome(event);
      }
      throw notFound('Run not found');
    } finally {
      signal?.removeEventListener('abort', stop);
      await subscription.close();
    }
  }

  /** A run's outcome with its final values whole: as this process remembers them, or read back. */
  private async wholeOutcome(event: RecordedEvent): Promise<RunFinishedData> {
    const finished = event.data as RunFinishedData;
    if (!finished.values_extends) return finished;
    const remembered = this.finishedValues.of(finished.thread_id);
    if (remembered?.runId === finished.run_id) {
      return { ...finished, values: remembered.values, values_extends: null };
    }
    return (await new ValuesChunkExpander(this.store).expand(event)).data as RunFinishedData;
  }

  /** Resolves when the run has finished, with what join and wait answer. */
  async resultOf(
    runId: string,
    options: { readonly justCreated?: boolean; readonly signal?: AbortSignal } = {},
  ): Promise<RunResult> {
    const finished = await this.waitForFinish(runId, options);
    if (finished.status === 'error') return { __error__: finished.error };
    return finished.values;
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

  /** The ids of every run the thread has had (that its read model knows of yet); 404 without the thread. */
  async runIdsOfThread(threadId: string): Promise<string[]> {
    if (!isUuid(threadId) || !(await this.threads.exists(threadId))) {
      throw notFound(`Thread ${threadId} not found`);
    }
    await this.freshness.catchUp('runs');
    const rows = await this.dataSource
      .getRepository(RunEntity)
      .createQueryBuilder('r')
      .select('r.run_id', 'run_id')
      .where('r.thread_id = :threadId', { threadId })
      .getRawMany<{ run_id: string }>();
    return rows.map((row) => row.run_id);
  }

  /** The thread a run belongs to (a stateless run's own temporary thread), read from its stream. */
  async threadOfRun(runId: string): Promise<string> {
    return (await this.createdOf(runId)).thread_id;
  }

  /** How the run was created (its input, command and metadata), read from its stream. */
  async createdOf(runId: string): Promise<RunCreatedData> {
    if (!isUuid(runId)) throw notFound('Run not found');
    const [created] = await this.store.readStream(runStream(runId), { maxCount: 1 });
    if (created?.type !== 'RunCreated' || typeof created.data.thread_id !== 'string') {
      throw notFound('Run not found');
    }
    return created.data as RunCreatedData;
  }

  async requireRunOfThread(threadId: string, runId: string): Promise<void> {
    if (!isUuid(runId)) throw notFound('Run not found');
    const [created] = await this.store.readStream(runStream(runId), { maxCount: 1 });
    if (created?.type !== 'RunCreated' || created.data.thread_id !== threadId) {
      throw notFound('Run not found');
    }
  }

  async cancel(
    threadId: string,
    runId: string,
    action: 'interrupt' | 'rollback',
    now: string,
    /** Resolve only once the run has ended. */
    wait = false,
  ): Promise<void> {
    await this.requireRunOfThread(threadId, runId);
    const outcome = await this.queue.cancel(runId, action);
    if (outcome.kind === 'signalled_running') this.signals.cancelIfRunningHere(runId, action);
    if (outcome.kind === 'removed_pending') {
      const finished: RunFinishedData = {
        run_id: runId,
        thread_id: threadId,
        status: 'interrupted',
        attempt: 0,
        error: null,
        state_captured: false,
        values: null,
        values_extends: null,
        next: [],
        interrupts: {},
        temporary: outcome.payload.kwargs.temporary,
        finished_at: now,
      };
      await this.recordCreated(outcome.payload);
      const stored = await this.store.readStream(runStream(runId));
      const lifecycle = foldRunLifecycle(stored);
      await recordRunFinished(
        (events) =>
          this.store.append(runStream(runId), events, {
            expectedPosition: stored.at(-1)?.streamPosition ?? 'no_stream',
          }),
        lifecycle,
        { created: outcome.payload, finished, startedAt: null, rolledBack: action === 'rollback' },
        this.runObserver,
      );
    }
    if (wait) await this.waitForFinish(runId);
  }

  /** Removes a finished run from its thread's runs; its events stay in the log. */
  async delete(threadId: string, runId: string, now: string): Promise<void> {
    await this.requireRunOfThread(threadId, runId);
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
      await this.threads.create(threadId, {}, 'do_nothing', now);
      return;
    }
    throw notFound(`Thread ${threadId} not found`);
  }
}
