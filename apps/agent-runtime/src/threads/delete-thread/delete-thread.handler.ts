import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ThreadCommands } from '../thread-commands.js';
import { DeleteThread } from './delete-thread.command.js';

@CommandHandler(DeleteThread)
export class DeleteThreadHandler implements ICommandHandler<DeleteThread> {
  constructor(@Inject(ThreadCommands) private readonly threads: ThreadCommands) {}

  execute({ threadId, now }: DeleteThread): Promise<void> {
    return this.threads.remove(threadId, now);
  }
}
