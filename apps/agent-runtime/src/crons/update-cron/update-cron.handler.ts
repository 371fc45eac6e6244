import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { JsonObject } from '#libs/event-store';
import { CronCommands } from '../cron-commands.js';
import { PAYLOAD_FIELDS, scheduleOf } from '../cron-request.js';
import type { CronSettings } from '../cron.events.js';
import type { CronRow } from '../cron.entity.js';
import type { Cron } from '../cron.resource.js';
import type { UpdateCronDto } from './update-cron.dto.js';
import { CronsService } from '../crons.service.js';
import { UpdateCron } from './update-cron.command.js';

/** The settings a PATCH changes; a stateless cron's `on_run_completed` only. */
function changesOf(body: UpdateCronDto, current: CronRow): Partial<CronSettings> {
  const payload = Object.fromEntries(
    PAYLOAD_FIELDS.filter((key) => body[key as keyof UpdateCronDto] !== undefined).map((key) => [
      key,
      body[key as keyof UpdateCronDto] as JsonObject[string],
    ]),
  );
  return {
    ...(body.schedule === undefined ? {} : { schedule: body.schedule }),
    ...(body.timezone === undefined ? {} : { timezone: body.timezone }),
    ...(body.end_time === undefined
      ? {}
      : { end_time: body.end_time === null ? null : new Date(body.end_time).toISOString() }),
    ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
    ...(body.on_run_completed === undefined || current.thread_id !== null
      ? {}
      : { on_run_completed: body.on_run_completed }),
    ...(Object.keys(payload).length === 0 ? {} : { payload }),
    ...(body.metadata === undefined ? {} : { metadata: body.metadata }),
  };
}

@CommandHandler(UpdateCron)
export class UpdateCronHandler implements ICommandHandler<UpdateCron> {
  constructor(
    @Inject(CronCommands) private readonly crons: CronCommands,
    @Inject(CronsService) private readonly queries: CronsService,
  ) {}

  async execute({ cronId, body, now }: UpdateCron): Promise<Cron> {
    const current = await this.queries.row(cronId);
    if (body.schedule !== undefined || body.timezone !== undefined) {
      scheduleOf(body.schedule ?? current.schedule, body.timezone ?? current.timezone);
    }
    await this.crons.handle(cronId, { kind: 'update', changes: changesOf(body, current), now });
    return this.queries.get(cronId);
  }
}
