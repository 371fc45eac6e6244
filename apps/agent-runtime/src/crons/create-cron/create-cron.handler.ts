import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { notFound } from '#libs/domain';
import { uuidv7 } from '#libs/event-store';
import { AssistantsService } from '../../assistants/assistants.service.js';
import { ThreadsService } from '../../threads/threads.service.js';
import { CronCommands } from '../cron-commands.js';
import { runPayloadOf, scheduleOf } from '../cron-request.js';
import type { CronCreatedData } from '../cron.events.js';
import { cronResource, type Cron } from '../cron.resource.js';
import { evolveCronRow } from '../crons.projection.js';
import { CreateCron } from './create-cron.command.js';

@CommandHandler(CreateCron)
export class CreateCronHandler implements ICommandHandler<CreateCron> {
  constructor(
    @Inject(CronCommands) private readonly crons: CronCommands,
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
  ) {}

  async execute({ threadId, body, userId, now }: CreateCron): Promise<Cron> {
    scheduleOf(body.schedule, body.timezone);
    const assistant = await this.assistants.resolve(body.assistant_id);
    if (threadId !== null && !(await this.threads.exists(threadId))) {
      throw notFound(`Thread ${threadId} not found`);
    }
    const cronId = uuidv7();
    const cron: Omit<CronCreatedData, 'next_run_date'> = {
      cron_id: cronId,
      assistant_id: assistant.assistant_id,
      thread_id: threadId,
      schedule: body.schedule,
      timezone: body.timezone ?? null,
      end_time: body.end_time ? new Date(body.end_time).toISOString() : null,
      enabled: body.enabled ?? true,
      on_run_completed: threadId === null ? (body.on_run_completed ?? 'delete') : null,
      payload: runPayloadOf(body),
      metadata: body.metadata ?? {},
      user_id: userId,
      created_at: now,
    };
    const { events } = await this.crons.handle(cronId, { kind: 'create', cron });
    const [created] = events;
    const row = created && evolveCronRow(undefined, created);
    if (!row) throw new Error('CronCreated was not decided');
    return cronResource(row);
  }
}
