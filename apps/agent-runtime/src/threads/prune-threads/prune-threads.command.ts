import { Command } from '@nestjs/cqrs';

/** The threads named deleted (those that exist), as `DELETE /threads/{id}` deletes each. */
export class PruneThreads extends Command<{ pruned_count: number }> {
  constructor(
    readonly threadIds: readonly string[],
    readonly now: string,
  ) {
    super();
  }
}
