import { Command } from '@nestjs/cqrs';
import type { Cron } from '../cron.resource.js';
import type { CreateCronDto } from './create-cron.dto.js';

/** A cron for the assistant: stateless (`threadId` null, a new thread per tick) or on a thread. */
export class CreateCron extends Command<Cron> {
  constructor(
    readonly threadId: string | null,
    readonly body: CreateCronDto,
    /** The user the application's auth says the request is for; the cron's runs are theirs. */
    readonly userId: string | null,
    readonly now: string,
  ) {
    super();
  }
}
