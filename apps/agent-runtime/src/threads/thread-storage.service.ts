import { Inject, Injectable } from '@nestjs/common';
import { EventStore } from '#libs/event-store';
import { checkpointStreamOf } from '../checkpoints/checkpoint-events.js';
import { tallyEvents, threadStorageOf, type ThreadStorage } from './thread-storage.js';
import { ThreadsService } from './threads.service.js';

/**
 * `GET /threads/{thread_id}/storage`: what the thread's checkpoints take in the event log, each
 * event measured as the UTF-8 JSON text of its content. The log holds a thread's content
 * encrypted, so the stream is read back (opened) and measured here, whatever the adapter.
 */
@Injectable()
export class ThreadStorageService {
  constructor(
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(EventStore) private readonly store: EventStore,
  ) {}

  async storage(threadId: string): Promise<ThreadStorage> {
    await this.threads.row(threadId);
    const events = await this.store.readStream(checkpointStreamOf(threadId));
    return threadStorageOf(
      threadId,
      tallyEvents(events, (value) => Buffer.byteLength(JSON.stringify(value), 'utf8')),
    );
  }
}
