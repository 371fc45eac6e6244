import { Inject, Injectable } from '@nestjs/common';
import type { Thread } from './thread.resource.js';
import { ThreadStateUpdates } from './thread-state-updates.service.js';
import { ttlOf, type CreateThreadDto } from './threads.dto.js';
import { ThreadsService } from './threads.service.js';

/** `POST /threads`: a thread, and with `supersteps` the history they build, or nothing at all. */
@Injectable()
export class ThreadCreation {
  constructor(
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(ThreadStateUpdates) private readonly updates: ThreadStateUpdates,
  ) {}

  async create(body: CreateThreadDto, now: string): Promise<Thread> {
    const threadId = body.thread_id ?? this.threads.newThreadId();
    const metadata = {
      ...(body.metadata ?? {}),
      ...(body.graph_id === undefined ? {} : { graph_id: body.graph_id }),
    };
    if (!body.supersteps?.length) {
      return this.threads.create(threadId, metadata, body.if_exists ?? 'raise', now, ttlOf(body));
    }
    this.updates.graphOf({ thread_id: threadId, metadata });
    await this.threads.create(threadId, metadata, 'raise', now, ttlOf(body));
    try {
      await this.updates.applySupersteps(await this.threads.row(threadId), body.supersteps, now);
    } catch (error) {
      await this.threads.delete(threadId, now);
      throw error;
    }
    return this.threads.get(threadId);
  }
}
