import { FinishedValuesMemory } from '../run-records/finished-values-memory.js';
import { ValuesChunkExpander } from '../run-records/values-chunk-expander.js';
import { notFound } from '#libs/domain';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventStore, type RecordedEvent, type JsonObject, type JsonValue } from '#libs/event-store';
import { selectFields } from '../common/select-fields.js';
import { isUuid } from '../common/uuid5.js';
import { ReadModelFreshness } from '#libs/persistence';
import { ThreadsService } from '../threads/threads.service.js';
import { RunEntity } from '../run-records/run.entity.js';
import { runResource, type Run } from './run.resource.js';
import {
  FIRST_CHUNK_POSITION,
  runStream,
  type RunCreatedData,
  type RunFinishedData,
} from '../run-records/run.events.js';
import type { ListRunsDto } from './runs.dto.js';

/** What join and wait answer: the thread's values after the run, or its error. */
export type RunResult = JsonValue | { readonly __error__: JsonObject | null };

/** What a run's waiter looks for: the chunks its stream fills with need not be read. */
const RUN_FINISHED_ONLY: ReadonlySet<string> = new Set(['RunFinished']);

/** The runs' read side: the read model, a run's stream, and waiting for a run's outcome. */
@Injectable()
export class RunsService {
  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(FinishedValuesMemory) private readonly finishedValues: FinishedValuesMemory,
  ) {}

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
}
