import { notFound } from '#libs/domain';
import type { DataKey, DataKeyStore } from '#libs/encryption';
import type { EventStore, RecordedEvent } from '#libs/event-store';
import { runStream } from '../run-records/run.events.js';
import { threadStream } from '../threads/thread.events.js';
import { isErasure, threadScope, type ThreadStreamOf } from './thread-content.js';

const MAX_KNOWN_RUNS = 50_000;

/**
 * Which thread's key encrypts a stream's events, and that key. A run's thread is in clear in its
 * events (its first one names it); a key is made for a thread the first time it is written,
 * unless the thread was deleted: what a late writer (a run still streaming) appends then is
 * refused rather than written under a key the deletion did not destroy.
 */
export class ThreadKeys {
  private readonly runThreads = new Map<string, string>();

  constructor(
    private readonly store: EventStore,
    private readonly keys: DataKeyStore,
  ) {}

  /** Remembers the thread of a run, from one of its events that names it. */
  noteRun(runId: string, threadId: unknown): void {
    if (typeof threadId !== 'string' || this.runThreads.has(runId)) return;
    this.runThreads.set(runId, threadId);
    if (this.runThreads.size > MAX_KNOWN_RUNS) {
      const oldest = this.runThreads.keys().next().value;
      if (oldest !== undefined) this.runThreads.delete(oldest);
    }
  }

  async threadOf(stream: ThreadStreamOf, firstEvent?: RecordedEvent): Promise<string> {
    if (stream.kind !== 'run') return stream.threadId;
    const known = this.runThreads.get(stream.runId);
    if (known !== undefined) return known;
    const [first] = firstEvent
      ? [firstEvent]
      : await this.store.readStream(runStream(stream.runId), { maxCount: 1 });
    const threadId = first?.data['thread_id'];
    if (typeof threadId !== 'string') throw notFound(`Run ${stream.runId} not found`);
    this.noteRun(stream.runId, threadId);
    return threadId;
  }

  /** The key to write the thread's events with. `creates`: the event that makes the thread. */
  async keyToWrite(threadId: string, creates: boolean): Promise<DataKey> {
    const scope = threadScope(threadId);
    if (!creates && !this.keys.holds(scope) && (await this.wasErased(threadId))) {
      throw notFound(`Thread ${threadId} not found`);
    }
    return this.keys.keyOf(scope);
  }

  /** After the thread's deletion was appended (its key is gone in the same transaction). */
  async erased(threadId: string): Promise<void> {
    await this.keys.destroy(threadScope(threadId));
  }

  forget(threadId: string): void {
    this.keys.forget(threadScope(threadId));
  }

  private async wasErased(threadId: string): Promise<boolean> {
    const [last] = await this.store.readStream(threadStream(threadId), {
      direction: 'backwards',
      maxCount: 1,
    });
    return last !== undefined && isErasure(last.type);
  }
}
