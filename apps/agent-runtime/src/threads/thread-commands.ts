import { Inject, Injectable } from '@nestjs/common';
import {
  AggregateCommands,
  EventStore,
  foldCacheOf,
  uuidv7,
  type Appender,
  type JsonObject,
} from '#libs/event-store';
import { DomainError, notFound } from '#libs/domain';
import { checkpointStreamOf } from '../checkpoints/index.js';
import { OwnedResources } from '../common/owned-resources.js';
import { isUuid } from '../common/uuid5.js';
import {
  threadDecider,
  type ThreadCommand,
  type ThreadState,
  type ThreadTtl,
} from './thread.decider.js';
import type { AdmittedCopy } from './thread-copy-admission.js';
import {
  threadStream,
  type ThreadCopiedData,
  type ThreadEvent,
  type ThreadStateUpdatedData,
} from './thread.events.js';
import { threadResource, type Thread } from './thread.resource.js';
import { ThreadsService } from './threads.service.js';

/** Minutes of the TTL a thread created without one gets (`checkpointer.ttl.default_ttl`), or null. */
export const DEFAULT_THREAD_TTL_MINUTES = Symbol('DEFAULT_THREAD_TTL_MINUTES');

/** The thread aggregate's command side, bound once for the handlers of its commands and the features that write threads. */
@Injectable()
export class ThreadCommands {
  /**
   * Threads' folded decider states, kept optimistically: a command on a thread this process
   * folded before decides without reading, and reads only when its append finds another
   * writer's events. Safe because a thread's stream is never deleted (a deleted thread ends
   * with ThreadDeleted or ThreadExpired, and a new thread of that id continues the stream).
   */
  private readonly folds = foldCacheOf(threadDecider, undefined, true);
  private readonly commands: AggregateCommands<ThreadState, ThreadCommand, ThreadEvent>;

  constructor(
    @Inject(EventStore) private readonly store: EventStore,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(DEFAULT_THREAD_TTL_MINUTES) private readonly defaultTtlMinutes: number | null,
    @Inject(OwnedResources) private readonly owned: OwnedResources,
  ) {
    this.commands = new AggregateCommands({
      store,
      decider: threadDecider,
      streamOf: threadStream,
      folds: this.folds,
    });
  }

  /** Deletes the thread and what it owns (its crons). */
  async remove(threadId: string, now: string): Promise<void> {
    await this.delete(threadId, now);
    await this.owned.deleteOf({ threadId }, now);
  }

  async create(
    threadId: string,
    metadata: JsonObject,
    ifExists: 'raise' | 'do_nothing',
    now: string,
    ttl: ThreadTtl = null,
  ): Promise<Thread> {
    const outcome = await this.execute(threadId, {
      kind: 'create',
      thread_id: threadId,
      metadata,
      if_exists: ifExists,
      ttl:
        ttl ?? (this.defaultTtlMinutes === null ? null : { ttl_minutes: this.defaultTtlMinutes }),
      now,
    });
    if (outcome.events.length === 0) return this.threads.get(threadId);
    return {
      thread_id: threadId,
      created_at: now,
      updated_at: now,
      metadata,
      status: 'idle',
      config: {},
      values: null,
      interrupts: {},
    };
  }

  async updateMetadata(
    threadId: string,
    metadata: JsonObject,
    now: string,
    ttl: ThreadTtl = null,
  ): Promise<Thread> {
    await this.execute(threadId, { kind: 'update_metadata', metadata, ttl, now });
    return this.threads.get(threadId);
  }

  /** Deletes a thread whose TTL ran out, as a delete does; nothing when it is gone already. */
  async expire(threadId: string, now: string): Promise<boolean> {
    const outcome = await this.execute(threadId, { kind: 'expire', thread_id: threadId, now });
    if (outcome.events.length === 0) return false;
    await this.store.deleteStream(checkpointStreamOf(threadId));
    return true;
  }

  /** The thread and its checkpoints; the runs stay in the log for the audit. */
  async delete(threadId: string, now: string): Promise<void> {
    await this.execute(threadId, { kind: 'delete', thread_id: threadId, now });
    await this.store.deleteStream(checkpointStreamOf(threadId));
  }

  /** `append`: how its event is appended, when it goes with others (the checkpoint it records). */
  async recordStateUpdate(
    threadId: string,
    update: ThreadStateUpdatedData,
    append?: Appender,
  ): Promise<void> {
    await this.execute(threadId, { kind: 'record_state_update', update }, append);
  }

  /** An id for a new thread: its stream is known to be empty, so its creation reads nothing. */
  newThreadId(): string {
    const threadId = uuidv7();
    this.folds.begin(threadStream(threadId));
    return threadId;
  }

  /** A new thread with the source's metadata, state and whole checkpoint history, on streams of its own. */
  async copy(sourceId: string, now: string, admitted?: AdmittedCopy): Promise<Thread> {
    const threadId = admitted?.threadId ?? this.newThreadId();
    const source = await this.threads.row(sourceId);
    const metadata = admitted?.metadata ?? { ...source.metadata, thread_id: threadId };
    const status = source.status === 'busy' ? 'idle' : source.status;
    const copy: ThreadCopiedData = {
      thread_id: threadId,
      copied_from: sourceId,
      metadata,
      values: source.values,
      interrupts: source.interrupts,
      status,
      created_at: now,
    };
    // The history and the event that makes it a thread land in one transaction, or neither.
    await this.execute(threadId, { kind: 'copy', copy }, (stream, events, options) =>
      this.store.copyStreamAndAppend(
        checkpointStreamOf(sourceId),
        checkpointStreamOf(threadId),
        stream,
        events,
        options,
      ),
    );
    return threadResource({
      ...source,
      thread_id: threadId,
      metadata,
      status,
      created_at: new Date(now),
      updated_at: new Date(now),
      inflight_runs: [],
    });
  }

  /** Deletes the threads whose runs an assistant made (`metadata.assistant_id`). */
  async deleteCreatedThrough(assistantId: string, now: string): Promise<void> {
    for (const threadId of await this.threads.createdThrough(assistantId)) {
      await this.delete(threadId, now).catch((error: unknown) => {
        // Deleted meanwhile by another request: what was asked for is done.
        if (!(error instanceof DomainError && error.code === 'not_found')) throw error;
      });
    }
  }

  private async execute(
    threadId: string,
    command: ThreadCommand,
    append?: Appender,
  ): Promise<{ state: ThreadState; events: unknown[] }> {
    if (!isUuid(threadId)) throw notFound(`Thread ${threadId} not found`);
    return this.commands.handle(threadId, command, { append });
  }
}
