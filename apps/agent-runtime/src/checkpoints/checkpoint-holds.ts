import { uuidv7, type EventStore, type EventToAppend } from '#libs/event-store';
import { checkpointStreamOf, type CheckpointEvent } from './checkpoint-events.js';
import type { ThreadCheckpointCache } from './thread-checkpoint-cache.js';

/** What a caller holding a thread's checkpoints may do with what the hold kept back. */
export interface CheckpointHold {
  /**
   * Appends the checkpoint events kept back so far and, at the same moment, the caller's own
   * append (`alongside`): the store's group commit takes both in one statement and one commit.
   */
  appendWith<R>(alongside: () => Promise<R>): Promise<R>;
}

interface Hold {
  readonly kept: EventToAppend[];
  /** The stream position the first kept event follows. */
  after: number;
}

/**
 * Checkpoint events of threads held under their lock, kept back instead of appended one by one:
 * the cache folds them ahead at the positions they will take (nobody else writes the stream
 * meanwhile), so reads see them at once, and they reach the log in one append that expects
 * exactly those positions, when the caller asks or when the hold ends.
 */
export class CheckpointHolds {
  private readonly holds = new Map<string, Hold>();

  constructor(
    private readonly store: EventStore,
    private readonly cache: ThreadCheckpointCache,
  ) {}

  run<T>(threadId: string, work: (hold: CheckpointHold) => Promise<T>): Promise<T> {
    return this.cache.exclusively(threadId, async () => {
      const hold: Hold = { kept: [], after: -1 };
      this.holds.set(threadId, hold);
      try {
        const result = await work({
          appendWith: async (alongside) => {
            const [, outcome] = await Promise.all([this.flush(threadId), alongside()]);
            return outcome;
          },
        });
        await this.flush(threadId);
        return result;
      } catch (error) {
        // What was folded ahead never reached the log.
        if (hold.kept.length > 0) this.cache.forget(threadId);
        throw error;
      } finally {
        this.holds.delete(threadId);
      }
    });
  }

  /** Keeps the event back when its thread is held and its position is known; false otherwise. */
  keep(threadId: string, event: CheckpointEvent): boolean {
    const hold = this.holds.get(threadId);
    if (!hold) return false;
    const toAppend: EventToAppend = { eventId: uuidv7(), type: event.type, data: event.data };
    const position = this.cache.foldAhead(threadId, toAppend.eventId, event);
    if (position === undefined) return false;
    if (hold.kept.length === 0) hold.after = position - 1;
    hold.kept.push(toAppend);
    return true;
  }

  /** Appends what the thread's hold kept back, at the positions the cache gave it. */
  async flush(threadId: string): Promise<void> {
    const hold = this.holds.get(threadId);
    if (!hold || hold.kept.length === 0) return;
    const events = hold.kept.splice(0);
    try {
      await this.store.append(checkpointStreamOf(threadId), events, {
        expectedPosition: hold.after >= 0 ? hold.after : 'no_stream',
      });
    } catch (error) {
      this.cache.forget(threadId);
      throw error;
    }
  }
}
