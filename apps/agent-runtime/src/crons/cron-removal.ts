import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainError, notFound } from '#libs/domain';
import { ReadModelFreshness } from '#libs/persistence';
import type { OwnedResources, ResourceOwner } from '../common/owned-resources.js';
import { isUuid } from '../common/uuid5.js';
import { CronCommands } from './cron-commands.js';
import { CronEntity } from './cron.entity.js';

/** Deletes crons: one by its id, or all of a deleted assistant's or thread's. */
@Injectable()
export class CronRemoval implements OwnedResources {
  constructor(
    @Inject(CronCommands) private readonly crons: CronCommands,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
  ) {}

  async delete(cronId: string, now: string): Promise<void> {
    if (!isUuid(cronId)) throw notFound('Cron not found');
    await this.crons.handle(cronId, { kind: 'delete', cronId, now });
  }

  /** A cron deleted meanwhile (by a request, or its own end) is not an error here. */
  async deleteIfThere(cronId: string, now: string): Promise<void> {
    await this.delete(cronId, now).catch((error: unknown) => {
      if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
    });
  }

  /**
   * Deletes the crons of an assistant or a thread that was deleted, as the reference server
   * cascades; resolves with how many.
   */
  async deleteOf(owner: ResourceOwner, now: string): Promise<number> {
    await this.freshness.catchUp('crons');
    const rows = await this.dataSource
      .getRepository(CronEntity)
      .findBy(
        'assistantId' in owner
          ? { assistant_id: owner.assistantId }
          : { thread_id: owner.threadId },
      );
    for (const row of rows) await this.deleteIfThere(row.cron_id, now);
    return rows.length;
  }
}
