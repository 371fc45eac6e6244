import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ThreadCommands } from '../thread-commands.js';
import { ThreadsService } from '../threads.service.js';
import { PruneThreads } from './prune-threads.command.js';

@CommandHandler(PruneThreads)
export class PruneThreadsHandler implements ICommandHandler<PruneThreads> {
  constructor(
    @Inject(ThreadCommands) private readonly threads: ThreadCommands,
    @Inject(ThreadsService) private readonly reads: ThreadsService,
  ) {}

  async execute({ threadIds, now }: PruneThreads): Promise<{ pruned_count: number }> {
    let pruned = 0;
    for (const threadId of new Set(threadIds)) {
      if (!(await this.reads.exists(threadId))) continue;
      await this.threads.remove(threadId, now);
      pruned += 1;
    }
    return { pruned_count: pruned };
  }
}
