import { Command } from '@nestjs/cqrs';
import type { Thread } from '../thread.resource.js';
import type { CreateThreadDto } from './create-thread.dto.js';

/** A thread, and with `supersteps` the history they build, or nothing at all. */
export class CreateThread extends Command<Thread> {
  constructor(
    readonly body: CreateThreadDto,
    readonly now: string,
  ) {
    super();
  }
}
