import { Command } from '@nestjs/cqrs';
import type { Cron } from '../cron.resource.js';
import type { UpdateCronDto } from './update-cron.dto.js';

/** `PATCH /runs/crons/{cron_id}`: its schedule, end, payload, metadata, or whether it fires. */
export class UpdateCron extends Command<Cron> {
  constructor(
    readonly cronId: string,
    readonly body: UpdateCronDto,
    readonly now: string,
  ) {
    super();
  }
}
