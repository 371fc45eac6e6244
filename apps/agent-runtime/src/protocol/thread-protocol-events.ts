import { Inject, Injectable } from '@nestjs/common';
import { EventStore } from '#libs/event-store';
import { RunsService } from '../runs/runs.service.js';
import { ThreadsService } from '../threads/threads.service.js';
import type { ProtocolEvent } from '../protocol-events/protocol-event.js';
import { streamStart } from './stream-start.js';
import { readThreadProtocolEvents } from './thread-protocol-stream.js';

/** Opens a thread's protocol event stream for a transport (SSE, WebSocket). */
@Injectable()
export class ThreadProtocolEvents {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(EventStore) private readonly store: EventStore,
  ) {}

  /**
   * From `since` (exclusive), or from the run in progress, or from now. A thread not made yet is
   * streamed all the same: a client opens its stream before its first `run.start` creates it.
   */
  async open(
    threadId: string,
    since: number | undefined,
    signal: AbortSignal,
    onCaughtUp?: () => void,
  ): Promise<AsyncGenerator<ProtocolEvent>> {
    // Read first: a run started while the thread's runs are read (a WebSocket's run.start right
    // after its subscribe) is then either among them or after this head, never missed.
    const head = await this.store.headPosition();
    const runIds = (await this.threads.exists(threadId))
      ? await this.runs.runIdsOfThread(threadId)
      : [];
    const after = await streamStart(this.store, runIds, since, head);
    return readThreadProtocolEvents(
      this.store,
      threadId,
      runIds,
      { after, since, onCaughtUp },
      signal,
    );
  }
}
