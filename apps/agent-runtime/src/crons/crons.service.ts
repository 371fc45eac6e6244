import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainError, notFound } from '#libs/domain';
import { ReadModelFreshness } from '#libs/persistence';
import { selectFields } from '../common/select-fields.js';
import { isUuid } from '../common/uuid5.js';
import { cronCaller } from '../auth/run-caller.js';
import type { CreateRunDto } from '../runs/create-run/create-run.dto.js';
import { RunCommands } from '../runs/run-commands.js';
import { CronCommands } from './cron-commands.js';
import { CronRemoval } from './cron-removal.js';
import { CronEntity, type CronRow } from './cron.entity.js';
import { cronResource, type Cron } from './cron.resource.js';
import { CronSchedule } from './cron-schedule.js';
import { CRON_FIELDS, type CountCronsDto, type SearchCronsDto } from './crons.dto.js';
import { tickIdentity } from './cron-request.js';
import { refuseEncryptedFilter } from '../common/json-keys-column.js';

/** A fired tick whose run is not in the runs read model this long after is made again (once). */
const RECOVERY_WINDOW_MS = 2 * 60_000;
const DUE_BATCH = 100;

@Injectable()
export class CronsService {
  private readonly logger = new Logger('crons');

  constructor(
    @Inject(CronCommands) private readonly crons: CronCommands,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(RunCommands) private readonly runCommands: RunCommands,
    @Inject(CronRemoval) private readonly removal: CronRemoval,
  ) {}

  async get(cronId: string): Promise<Cron> {
    return cronResource(await this.row(cronId));
  }

  async search(query: SearchCronsDto): Promise<Partial<Cron & { now: string }>[]> {
    const now = new Date().toISOString();
    const column = query.sort_by ?? 'created_at';
    const rows = await (
      await this.matching(query)
    )
      .orderBy(`c.${column}`, query.sort_order === 'asc' ? 'ASC' : 'DESC', 'NULLS LAST')
      .addOrderBy('c.cron_id', 'ASC')
      .offset(query.offset ?? 0)
      .limit(query.limit ?? 10)
      .getMany();
    return rows.map((row) =>
      selectFields({ ...cronResource(row), now }, query.select ?? CRON_VIEW),
    );
  }

  async count(query: CountCronsDto): Promise<number> {
    return (await this.matching(query)).getCount();
  }

  /**
   * One pass of the scheduler: each cron that is due fires its latest tick (one run, however
   * many ticks were missed), decided on the cron's stream so that a tick fires once across
   * replicas; then each fired tick whose run is not seen yet is made (at most once).
   */
  async fireDue(now: Date): Promise<number> {
    await this.freshness.catchUp('crons');
    const repository = this.dataSource.getRepository(CronEntity);
    const due = await repository
      .createQueryBuilder('c')
      .where('c.next_run_date <= :now', { now })
      .orderBy('c.next_run_date', 'ASC')
      .limit(DUE_BATCH)
      .getMany();
    let fired = 0;
    for (const cron of due) {
      if (await this.fire(cron, now)) fired++;
    }
    for (const cron of await this.firedWithoutRun(now)) {
      if (cron.last_tick) await this.createRun(cron, cron.last_tick.toISOString(), now);
    }
    return fired;
  }

  private async fire(cron: CronRow, now: Date): Promise<boolean> {
    let tick: string | undefined;
    try {
      tick = CronSchedule.parse(cron.schedule, cron.timezone).tickAtOrBefore(now)?.toISOString();
    } catch (error) {
      this.logger.warn(`Cron ${cron.cron_id}: ${String(error)}`);
      return false;
    }
    if (!tick) return false;
    const { runId, threadId } = tickIdentity(cron.cron_id, tick);
    const { events } = await this.crons.handle(cron.cron_id, {
      kind: 'fire',
      tick,
      runId,
      threadId: cron.thread_id ?? threadId,
      now: now.toISOString(),
    });
    if (events.length === 0) return false;
    await this.createRun(cron, tick, now);
    return true;
  }

  /** The run of a fired tick; nothing when it was made before, by this replica or another. */
  private async createRun(cron: CronRow, tick: string, now: Date): Promise<void> {
    const identity = tickIdentity(cron.cron_id, tick);
    const payload = cron.payload as unknown as Partial<CreateRunDto>;
    const body: CreateRunDto = {
      ...payload,
      assistant_id: cron.assistant_id,
      metadata: { ...cron.metadata, ...(payload.metadata ?? {}), cron_id: cron.cron_id },
      multitask_strategy: payload.multitask_strategy ?? 'enqueue',
      on_completion: cron.on_run_completed ?? 'delete',
    };
    try {
      const caller = cronCaller(cron.user_id);
      await this.runCommands.createOnce(cron.thread_id, body, now.toISOString(), identity, caller);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') {
        // Its assistant or its thread is gone (deleted by a path that does not cascade, or
        // expired): so is the cron.
        this.logger.warn(`Cron ${cron.cron_id} is deleted: ${error.message}`);
        await this.removal.deleteIfThere(cron.cron_id, now.toISOString());
        return;
      }
      this.logger.warn(
        `Cron ${cron.cron_id}: the run of the tick ${tick} could not be created: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Recently fired crons whose run the runs read model does not hold (yet). */
  private firedWithoutRun(now: Date): Promise<CronRow[]> {
    return this.dataSource
      .getRepository(CronEntity)
      .createQueryBuilder('c')
      .where('c.last_fired_at > :since', { since: new Date(now.getTime() - RECOVERY_WINDOW_MS) })
      .andWhere('c.last_fired_at < :settled', { settled: new Date(now.getTime() - 5_000) })
      .andWhere('not exists (select 1 from runs r where r.run_id = c.last_run_id)')
      .limit(DUE_BATCH)
      .getMany();
  }

  /** The cron as the read model has it; 404 for an id that is not a cron's. */
  async row(cronId: string): Promise<CronRow> {
    if (!isUuid(cronId)) throw notFound('Cron not found');
    await this.freshness.catchUp('crons');
    const row = await this.dataSource.getRepository(CronEntity).findOneBy({ cron_id: cronId });
    if (!row) throw notFound('Cron not found');
    return row;
  }

  private async matching(query: CountCronsDto) {
    await this.freshness.catchUp('crons');
    const builder = this.dataSource.getRepository(CronEntity).createQueryBuilder('c');
    if (query.assistant_id) builder.andWhere('c.assistant_id = :a', { a: query.assistant_id });
    if (query.thread_id) builder.andWhere('c.thread_id = :t', { t: query.thread_id });
    if (query.enabled !== undefined) builder.andWhere('c.enabled = :e', { e: query.enabled });
    if (query.metadata) {
      refuseEncryptedFilter(query.metadata);
      builder.andWhere('c.metadata @> :m::jsonb', { m: JSON.stringify(query.metadata) });
    }
    return builder;
  }
}

/** A search's fields without `select`: every field of a cron (`now` only when asked for). */
const CRON_VIEW = CRON_FIELDS.filter((field) => field !== 'now');
