import { Command } from '@nestjs/cqrs';

/** A run cancelled: taken from the queue when pending, stopped where it runs otherwise. */
export class CancelRun extends Command<void> {
  constructor(
    readonly threadId: string,
    readonly runId: string,
    readonly action: 'interrupt' | 'rollback',
    readonly now: string,
    /** Resolve only once the run has ended. */
    readonly wait = false,
  ) {
    super();
  }
}
