import { Command } from '@nestjs/cqrs';

/** A finished run removed from its thread's runs; its events stay in the log. */
export class DeleteRun extends Command<void> {
  constructor(
    readonly threadId: string,
    readonly runId: string,
    readonly now: string,
  ) {
    super();
  }
}
