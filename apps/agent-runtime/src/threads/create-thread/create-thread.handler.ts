import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ThreadCommands } from '../thread-commands.js';
import { ThreadStateUpdates } from '../thread-state-updates.service.js';
import type { Thread } from '../thread.resource.js';
import { ttlOf } from '../threads.dto.js';
import { ThreadsService } from '../threads.service.js';
import { CreateThread } from './create-thread.command.js';

@CommandHandler(CreateThread)
export class CreateThreadHandler implements ICommandHandler<CreateThread> {
  constructor(
    @Inject(ThreadCommands) private readonly threads: ThreadCommands,
    @Inject(ThreadsService) private readonly reads: ThreadsService,
    @Inject(ThreadStateUpdates) private readonly updates: ThreadStateUpdates,
  ) {}

  async execute({ body, now }: CreateThread): Promise<Thread> {
    const threadId = body.thread_id ?? this.threads.newThreadId();
    const metadata = {
      ...(body.metadata ?? {}),
      ...(body.graph_id === undefined ? {} : { graph_id: body.graph_id }),
    };
    if (!body.supersteps?.length) {
      return this.threads.create(threadId, metadata, body.if_exists ?? 'raise', now, ttlOf(body));
    }
    // The graph is checked before the thread is made: supersteps need it.
    this.updates.graphOf({ thread_id: threadId, metadata });
    await this.threads.create(threadId, metadata, 'raise', now, ttlOf(body));
    try {
      await this.updates.applySupersteps(await this.reads.row(threadId), body.supersteps, now);
    } catch (error) {
      await this.threads.delete(threadId, now);
      throw error;
    }
    return this.reads.get(threadId);
  }
}
