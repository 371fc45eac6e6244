import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ThreadCommands } from '../thread-commands.js';
import type { Thread } from '../thread.resource.js';
import { CopyThread } from './copy-thread.command.js';

@CommandHandler(CopyThread)
export class CopyThreadHandler implements ICommandHandler<CopyThread> {
  constructor(@Inject(ThreadCommands) private readonly threads: ThreadCommands) {}

  execute({ sourceId, now, admitted }: CopyThread): Promise<Thread> {
    return this.threads.copy(sourceId, now, admitted);
  }
}
