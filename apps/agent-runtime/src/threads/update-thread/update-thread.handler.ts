import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ThreadCommands } from '../thread-commands.js';
import type { Thread } from '../thread.resource.js';
import { ttlOf } from '../threads.dto.js';
import { UpdateThread } from './update-thread.command.js';

@CommandHandler(UpdateThread)
export class UpdateThreadHandler implements ICommandHandler<UpdateThread> {
  constructor(@Inject(ThreadCommands) private readonly threads: ThreadCommands) {}

  execute({ threadId, body, now }: UpdateThread): Promise<Thread> {
    return this.threads.updateMetadata(threadId, body.metadata ?? {}, now, ttlOf(body));
  }
}
