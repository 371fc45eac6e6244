import { OwnedResources } from '../common/owned-resources.js';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import {
  AggregateCommands,
  EventStore,
  foldCacheOf,
  uuidv7,
  type Appender,
  type JsonObject,
} from '#libs/event-store';
import { checkpointStreamOf } from '../checkpoints/index.js';
import { DomainError, notFound } from '#libs/domain';
import { selectFields } from '../common/select-fields.js';
import { isUuid } from '../common/uuid5.js';
import { ReadModelFreshness } from '#libs/persistence';
import {
  threadDecider,
  type ThreadCommand,
  type ThreadState,
  type ThreadTtl,
} from './thread.decider.js';
import type { AdmittedCopy } from './thread-copy-admission.js';
import { ThreadEntity, type ThreadRow } from './thread.entity.js';
import type { ReadUnderLock } from '../run-records/run-queue.js';
import {
  threadStream,
  type ThreadCopiedData,
  type ThreadEvent,
  type ThreadStateUpdatedData,
} from './thread.events.js';
import { threadResource, type Thread } from './thread.resource.js';
import type { SearchThreadsDto } from './threads.dto.js';

/** What state reads and writes need of a thread: its graph (in `metadata`) and its config. */
export type ThreadKey = Pick<ThreadRow, 'thread_id' | 'metadata' | 'config'>;

/** Minutes of the TTL a thread created without one gets (`checkpointer.ttl.default_ttl`), or null. */
export const DEFAULT_THREAD_TTL_MINUTES = Symbol('DEFAULT_THREAD_TTL_MINUTES');

@Injectable()
export class ThreadsService {
  /**
   * Threads' folded decider states, kept optimistically: a command on a thread this process
   * folded before decides without reading, and reads only when its append finds another
   * writer's events. Safe because a thread's stream is never deleted (a deleted thread ends
   * with ThreadDeleted or ThreadExpired, and a new thread of that id continues the stream).
   */
  private readonly folds = foldCacheOf(threadDecider, undefined, true);
  private readonly threadCommands: AggregateCommands<ThreadState, ThreadCommand, ThreadEvent>;

  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(DEFAULT_THREAD_TTL_MINUTES) private readonly defaultTtlMinutes: number | null,
    @Inject(OwnedResources) private readonly owned: OwnedResources,
  ) {
    this.threadCommands = new AggregateCommands({
      store,
      decider: threadDecider,
      streamOf: threadStream,
      folds: this.folds,
    });
  }

  /** Deletes the thread and what it owns (its crons). */
  async remove(threadId: string, now: string): Promise<void> {
    await this.delete(threadId, now);
    await this.owned.deleteOf({ threadId }, now);
  }

  async create(
    threadId: string,
    metadata: JsonObject,
    ifExists: 'raise' | 'do_nothing',
    now: string,
    ttl: ThreadTtl = null,
  ): Promise<Thread> {
    const outcome = await this.execute(threadId, {
      kind: 'create',
      thread_id: threadId,
      metadata,
      if_exists: ifExists,
      ttl:
        ttl ?? (this.defaultTtlMinutes === null ? null : { ttl_minutes: this.defaultTtlMinutes }),
      now,
    });
    if (outcome.events.length === 0) return this.get(threadId);
    return {
      thread_id: threadId,
      created_at: now,
      updated_at: now,
      metadata,
      status: 'idle',
      config: {},
      values: null,
      interrupts: {},
    };
  }

  async updateMetadata(
    threadId: string,
    metadata: JsonObject,
    now: string,
    ttl: ThreadTtl = null,
  ): Promise<Thread> {
    await this.execute(threadId, { kind: 'update_metadata', metadata, ttl, now });
    return this.get(threadId);
  }

  /** Deletes a thread whose TTL ran out, as a delete does; nothing when it is gone already. */
  async expire(threadId: string, now: string): Promise<boolean> {
    const outcome = await this.execute(threadId, { kind: 'expire', thread_id: threadId, now });
    if (outcome.events.length === 0) return false;
    await this.store.deleteStream(checkpointStreamOf(threadId));
    return true;
  }

  /** The threads whose TTL has run out since they were last touched, oldest first. */
  async expiredThreadIds(limit: number): Promise<string[]> {
    await this.freshness.catchUp('threads');
    const rows = await this.dataSource
      .getRepository(ThreadEntity)
      .createQueryBuilder('t')
      .select('t.thread_id')
      .where('t.ttl_minutes is not null')
      .andWhere("t.updated_at + t.ttl_minutes * interval '1 minute' < now()")
      .andWhere("t.inflight_runs = '[]'::jsonb")
      .orderBy('t.updated_at', 'ASC')
      .limit(limit)
      .getMany();
    return rows.map((row) => row.thread_id);
  }

  /** The thread and its checkpoints; the runs stay in the log for the audit. */
  async delete(threadId: string, now: string): Promise<void> {
    await this.execute(threadId, { kind: 'delete', thread_id: threadId, now });
    await this.store.deleteStream(checkpointStreamOf(threadId));
  }

  /** `append`: how its event is appended, when it goes with others (the checkpoint it records). */
  async recordStateUpdate(
    threadId: string,
    update: ThreadStateUpdatedData,
    append?: Appender,
  ): Promise<void> {
    await this.execute(threadId, { kind: 'record_state_update', update }, append);
  }

  /** An id for a new thread: its stream is known to be empty, so its creation reads nothing. */
  newThreadId(): string {
    const threadId = uuidv7();
    this.folds.begin(threadStream(threadId));
    return threadId;
  }

  /** A new thread with the source's metadata, state and whole checkpoint history, on streams of its own. */
  async copy(sourceId: string, now: string, admitted?: AdmittedCopy): Promise<Thread> {
    const threadId = admitted?.threadId ?? this.newThreadId();
    const source = await this.row(sourceId);
    const metadata = admitted?.metadata ?? { ...source.metadata, thread_id: threadId };
    const status = source.status === 'busy' ? 'idle' : source.status;
    const copy: ThreadCopiedData = {
      thread_id: threadId,
      copied_from: sourceId,
      metadata,
      values: source.values,
      interrupts: source.interrupts,
      status,
      created_at: now,
    };
    // The history and the event that makes it a thread land in one transaction, or neither.
    await this.execute(threadId, { kind: 'copy', copy }, (stream, events, options) =>
      this.store.copyStreamAndAppend(
        checkpointStreamOf(sourceId),
        checkpointStreamOf(threadId),
        stream,
        events,
        options,
      ),
    );
    return threadResource({
      ...source,
      thread_id: threadId,
      metadata,
      status,
      created_at: new Date(now),
      updated_at: new Date(now),
      inflight_runs: [],
    });
  }

  /** Deletes the threads whose runs an assistant made (`metadata.assistant_id`). */
  async deleteCreatedThrough(assistantId: string, now: string): Promise<void> {
    await this.freshness.catchUp('threads');
    const rows = await this.dataSource
      .getRepository(ThreadEntity)
      .createQueryBuilder('t')
      .select('t.thread_id')
      .where('t.metadata @> :metadata::jsonb', {
        metadata: JSON.stringify({ assistant_id: assistantId }),
      })
      .getMany();
    for (const row of rows) {
      await this.delete(row.thread_id, now).catch((error: unknown) => {
        // Deleted meanwhile by another request: what was asked for is done.
        if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
      });
    }
  }

  async get(threadId: string): Promise<Thread> {
    return threadResource(await this.row(threadId));
  }

  async row(threadId: string): Promise<ThreadRow> {
    if (!isUuid(threadId)) throw notFound(`Thread ${threadId} not found`);
    await this.freshness.catchUp('threads');
    const row = await this.dataSource
      .getRepository(ThreadEntity)
      .createQueryBuilder('t')
      .where('t.thread_id = :threadId', { threadId })
      .getOne();
    if (!row) throw notFound(`Thread ${threadId} not found`);
    return row;
  }

  /**
   * The thread for a state write, read in the round trip of the thread's lock without waiting for
   * the read model: what a write needs of it is its graph, which the write checks against the
   * thread's stream. Undefined when the read model does not show it with its graph yet.
   */
  rowUnderLock(threadId: string): ReadUnderLock<ThreadKey | undefined> {
    return {
      sql: (literal) =>
        `select thread_id, metadata, config from threads where thread_id = ${literal(threadId)}`,
      take: (rows) => {
        const [row] = rows as ThreadKey[];
        return row && typeof row.metadata.graph_id === 'string' ? row : undefined;
      },
    };
  }

  /** Whether the thread exists, from its stream: true at once after its creation, on any replica. */
  async exists(threadId: string): Promise<boolean> {
    if (!isUuid(threadId)) return false;
    const [last] = await this.store.readStream(threadStream(threadId), {
      direction: 'backwards',
      maxCount: 1,
    });
    // A thread's stream ends with ThreadDeleted or ThreadExpired once it is gone.
    return last !== undefined && last.type !== 'ThreadDeleted' && last.type !== 'ThreadExpired';
  }

  async search(query: SearchThreadsDto): Promise<Partial<Thread>[]> {
    const rows = await (
      await this.matching(query)
    )
      .orderBy(`t.${query.sort_by ?? 'created_at'}`, query.sort_order === 'asc' ? 'ASC' : 'DESC')
      .addOrderBy('t.thread_id', 'ASC')
      .offset(query.offset ?? 0)
      .limit(query.limit ?? 10)
      .getMany();
    return rows.map((row) => selectFields(threadResource(row), query.select));
  }

  /** How many threads the search's filters match, paging aside. */
  async count(query: SearchThreadsDto): Promise<number> {
    return (await this.matching(query)).getCount();
  }

  private async matching(query: SearchThreadsDto): Promise<SelectQueryBuilder<ThreadRow>> {
    await this.freshness.catchUp('threads');
    const builder = this.dataSource.getRepository(ThreadEntity).createQueryBuilder('t');
    if (query.metadata)
      builder.andWhere('t.metadata @> :metadata::jsonb', {
        metadata: JSON.stringify(query.metadata),
      });
    if (query.values)
      builder.andWhere('t.values @> :values::jsonb', { values: JSON.stringify(query.values) });
    if (query.status) builder.andWhere('t.status = :status', { status: query.status });
    if (query.ids)
      builder.andWhere('t.thread_id in (:...ids)', { ids: query.ids.length ? query.ids : [null] });
    return builder;
  }

  private async execute(
    threadId: string,
    command: ThreadCommand,
    append?: Appender,
  ): Promise<{ state: ThreadState; events: unknown[] }> {
    if (!isUuid(threadId)) throw notFound(`Thread ${threadId} not found`);
    return this.threadCommands.handle(threadId, command, { append });
  }
}
