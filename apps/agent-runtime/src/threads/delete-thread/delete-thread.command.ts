import { Command } from '@nestjs/cqrs';

/** A thread gone with its checkpoints and what it owns (its crons); its runs stay in the log. */
export class DeleteThread extends Command<void> {
  constructor(
    readonly threadId: string,
    readonly now: string,
  ) {
    super();
  }
}
