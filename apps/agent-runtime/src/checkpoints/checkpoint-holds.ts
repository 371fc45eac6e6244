import {
  uuidv7,
  WrongExpectedPositionError,
  type Appender,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type StreamAppend,
} from '#libs/event-store';
import { checkpointStreamOf, type CheckpointEvent } from './checkpoint-events.js';
import type { ThreadCheckpointCache } from './thread-checkpoint-cache.js';

/** What a caller holding a thread's checkpoints may do with what the hold kept back. */
export interface CheckpointHold {
  /**
   * Runs `write` with the appender its own append goes through: that append and the checkpoint
   * events kept back so far land together, in one transaction, or neither does.
   */
  appendWith<R>(write: (append: Appender) => Promise<R>): Promise<R>;
}

interface Hold {
  kept: EventToAppend[];
  /** The stream position the first kept event follows, and the id of the event there. */
  after: { readonly position: number; readonly eventId: string | undefined };
  /** What the cache held was trusted without a read: the append checks the event it follows. */
  readonly trusted: boolean;
  /** Something this attempt wrote is in the log. */
  landed: boolean;
}

/**
 * Checkpoint events of threads held under their lock, kept back instead of appended one by one:
 * the cache folds them ahead at the positions they will take (nobody else writes the stream
 * meanwhile), so reads see them at once, and they reach the log in one append that expects
 * exactly those positions, when the caller asks or when the hold ends.
 *
 * A thread this process has cached is trusted without a read: most often nobody else wrote it.
 * When somebody did, the append finds the stream moved and nothing lands; the work is then done
 * once more on what a read of the stream finds.
 */
export class CheckpointHolds {
  private readonly holds = new Map<string, Hold>();

  constructor(
    private readonly store: EventStore,
    private readonly cache: ThreadCheckpointCache,
  ) {}

  async run<T>(threadId: string, work: (hold: CheckpointHold) => Promise<T>): Promise<T> {
    const trusted = this.cache.has(threadId);
    try {
      return await this.attempt(threadId, work, trusted);
    } catch (error) {
      if (!(error instanceof UntrustedAttempt)) throw error;
      return this.attempt(threadId, work, false);
    }
  }

  private attempt<T>(
    threadId: string,
    work: (hold: CheckpointHold) => Promise<T>,
    trusted: boolean,
  ): Promise<T> {
    return this.cache.exclusively(
      threadId,
      async () => {
        const hold: Hold = {
          kept: [],
          after: { position: -1, eventId: undefined },
          trusted,
          landed: false,
        };
        this.holds.set(threadId, hold);
        try {
          const result = await work({
            appendWith: (write) =>
              write(async (streamId, events, options) => {
                const [appended] = await this.flush(threadId, [
                  { streamId, events, expectedPosition: options.expectedPosition },
                ]);
                if (!appended) throw new Error(`No outcome for the append to ${streamId}`);
                return appended;
              }),
          });
          await this.flush(threadId);
          return result;
        } catch (error) {
          // What was folded ahead never reached the log.
          if (hold.kept.length > 0) this.cache.forget(threadId);
          // Done on a cache nobody checked, and nothing of it landed: done again after a read.
          if (hold.trusted && !hold.landed) throw new UntrustedAttempt(error);
          throw error;
        } finally {
          this.holds.delete(threadId);
        }
      },
      trusted,
    );
  }

  /** Keeps the event back when its thread is held and its position is known; false otherwise. */
  keep(threadId: string, event: CheckpointEvent): boolean {
    const hold = this.holds.get(threadId);
    if (!hold) return false;
    const toAppend: EventToAppend = { eventId: uuidv7(), type: event.type, data: event.data };
    const head = this.cache.head(threadId);
    if (!head || this.cache.foldAhead(threadId, toAppend.eventId, event) === undefined)
      return false;
    if (hold.kept.length === 0) hold.after = head;
    hold.kept.push(toAppend);
    return true;
  }

  /**
   * Appends what the thread's hold kept back, at the positions the cache gave it, and `alongside`
   * with it; the results of `alongside`.
   */
  async flush(threadId: string, alongside: readonly StreamAppend[] = []): Promise<AppendResult[]> {
    const hold = this.holds.get(threadId);
    if (!hold || hold.kept.length === 0) {
      if (alongside.length === 0) return [];
      const results = await this.store.appendAll(alongside);
      if (hold) hold.landed = true;
      return results;
    }
    const stream = checkpointStreamOf(threadId);
    const { position, eventId } = hold.after;
    const kept: StreamAppend = {
      streamId: stream,
      events: hold.kept,
      expectedPosition: position >= 0 ? position : 'no_stream',
      ...(hold.trusted && position >= 0 ? { expectedEventId: eventId } : {}),
    };
    try {
      const [, ...results] = await this.store.appendAll([kept, ...alongside]);
      hold.kept = [];
      hold.landed = true;
      return results;
    } catch (error) {
      // Refused elsewhere (the caller's own stream moved): the kept events wait for its retry.
      if (error instanceof WrongExpectedPositionError && error.streamId !== stream) throw error;
      this.cache.forget(threadId);
      throw error;
    }
  }
}

/** An attempt on a trusted cache failed with nothing landed: the work may be done again. */
class UntrustedAttempt extends Error {
  constructor(failure: unknown) {
    super('An attempt on a cached thread failed before anything of it landed', { cause: failure });
  }
}
