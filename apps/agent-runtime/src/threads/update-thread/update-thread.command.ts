import { Command } from '@nestjs/cqrs';
import type { Thread } from '../thread.resource.js';
import type { UpdateThreadDto } from './update-thread.dto.js';

/** New metadata merged into a thread's, and a new TTL when given. */
export class UpdateThread extends Command<Thread> {
  constructor(
    readonly threadId: string,
    readonly body: UpdateThreadDto,
    readonly now: string,
  ) {
    super();
  }
}
