import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type SelectQueryBuilder } from 'typeorm';
import { EventStore } from '#libs/event-store';
import { notFound } from '#libs/domain';
import { selectFields } from '../common/select-fields.js';
import { isUuid } from '../common/uuid5.js';
import { ReadModelFreshness } from '#libs/persistence';
import { ThreadEntity, type ThreadRow } from './thread.entity.js';
import type { ReadUnderLock } from '../run-records/run-queue.js';
import { threadStream } from './thread.events.js';
import { threadResource, type Thread } from './thread.resource.js';
import type { SearchThreadsDto } from './threads.dto.js';
import { openJsonKeys, refuseEncryptedFilter } from '../common/json-keys-column.js';

/** What state reads and writes need of a thread: its graph (in `metadata`) and its config. */
export type ThreadKey = Pick<ThreadRow, 'thread_id' | 'metadata' | 'config'>;

/** The threads' read side: the read model, and whether a thread's stream shows it alive. */
@Injectable()
export class ThreadsService {
  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
  ) {}

  /** The threads whose runs an assistant made (`metadata.assistant_id`). */
  createdThrough(assistantId: string): Promise<string[]> {
    return this.threadIds((query) =>
      query.where('t.metadata @> :metadata::jsonb', {
        metadata: JSON.stringify({ assistant_id: assistantId }),
      }),
    );
  }

  /** The threads whose TTL has run out since they were last touched, oldest first. */
  expiredThreadIds(limit: number): Promise<string[]> {
    return this.threadIds((query) =>
      query
        .where('t.ttl_minutes is not null')
        .andWhere("t.updated_at + t.ttl_minutes * interval '1 minute' < now()")
        .andWhere("t.inflight_runs = '[]'::jsonb")
        .orderBy('t.updated_at', 'ASC')
        .limit(limit),
    );
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
        const [sealed] = rows as ThreadKey[];
        const row = sealed && { ...sealed, config: openJsonKeys(sealed.config) };
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
    if (query.metadata) {
      refuseEncryptedFilter(query.metadata);
      builder.andWhere('t.metadata @> :metadata::jsonb', {
        metadata: JSON.stringify(query.metadata),
      });
    }
    if (query.values)
      builder.andWhere('t.values @> :values::jsonb', { values: JSON.stringify(query.values) });
    if (query.status) builder.andWhere('t.status = :status', { status: query.status });
    if (query.ids)
      builder.andWhere('t.thread_id in (:...ids)', { ids: query.ids.length ? query.ids : [null] });
    return builder;
  }

  private async threadIds(
    narrow: (query: SelectQueryBuilder<ThreadRow>) => SelectQueryBuilder<ThreadRow>,
  ): Promise<string[]> {
    await this.freshness.catchUp('threads');
    const query = this.dataSource.getRepository(ThreadEntity).createQueryBuilder('t');
    const rows = await narrow(query.select('t.thread_id')).getMany();
    return rows.map((row) => row.thread_id);
  }
}
