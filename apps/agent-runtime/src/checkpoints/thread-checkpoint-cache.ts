import type { EventStore, RecordedEvent } from '#libs/event-store';
import {
  checkpointStreamOf,
  parseCheckpointEvent,
  type CheckpointEvent,
} from './checkpoint-events.js';
import { checkpointCacheBytesOf, checkpointEventHeapBytes } from './event-size.js';
import { ThreadCheckpoints } from './thread-checkpoints.js';
import type { DeltaBase } from './checkpoint-delta-writer.js';

export interface ThreadCheckpointCacheOptions {
  /**
   * Bytes of heap kept over all threads (each event counted as what it takes folded, see
   * `checkpointEventHeapBytes`); least recently used threads are dropped beyond it. A thread
   * larger than the whole budget is not kept once nobody works on it. Threads being read or held
   * (`exclusively`) are never dropped, and count. Default: a sixteenth of the heap limit, at most
   * 64 MB (`checkpointCacheBytesOf`; the runtime reads `BERTH_CHECKPOINT_CACHE_MB`).
   */
  readonly maxCachedBytes?: number;
  /** Threads kept in memory, least recently used dropped first. No bound but bytes by default. */
  readonly maxCachedThreads?: number;
  /** Events per read query while catching up. Default 500. */
  readonly readBatchSize?: number;
}

/** What a cached thread costs beyond its events: its maps and bookkeeping. */
const THREAD_OVERHEAD = 1024;

class CachedThread {
  readonly checkpoints = new ThreadCheckpoints();
  /** Stream position of the last event folded in; -1 before any. */
  lastPosition = -1;
  lastEventId: string | undefined;
  /** The heap its folded events take, and its overhead. */
  bytes = THREAD_OVERHEAD;
}

/**
 * The folded checkpoints of recently used threads. Events never change, so a thread is caught up
 * by reading from the last stream position it has seen: one short query when nothing is new.
 *
 * That read starts AT the last seen position, not after it: the one event it gets back again
 * proves the stream is still the one cached. If another process deleted the thread (and maybe
 * started it again: PostgreSQL numbers a re-created stream from 0, EventStoreDB goes on), the
 * event is gone or different, and the thread is read again from the start.
 */
export class ThreadCheckpointCache {
  private readonly threads = new Map<string, CachedThread>();
  /**
   * Threads whose checkpoint stream nobody else writes for now, each with whether what is cached
   * has been checked against the stream since: only the first read of such a thread queries it.
   */
  private readonly held = new Map<string, { checked: boolean }>();
  /** The bytes of every thread in `threads`. */
  private totalBytes = 0;
  private readonly maxBytes: number;
  private readonly maxThreads: number;
  private readonly batchSize: number;

  constructor(
    private readonly store: EventStore,
    options: ThreadCheckpointCacheOptions = {},
  ) {
    this.maxBytes = Math.max(0, options.maxCachedBytes ?? checkpointCacheBytesOf({}));
    this.maxThreads = Math.max(1, options.maxCachedThreads ?? Number.POSITIVE_INFINITY);
    this.batchSize = Math.max(2, options.readBatchSize ?? 500);
  }

  /**
   * Runs `work` while the caller keeps every other writer off the thread's checkpoint stream (it
   * holds the thread's lock): reads after the first then trust the cache, which folds this
   * process's own appends. With `trustCached`, the first read does too when the thread is cached:
   * the caller's appends then make sure the stream is still where the cache left it.
   */
  async exclusively<T>(threadId: string, work: () => Promise<T>, trustCached = false): Promise<T> {
    const hold = { checked: trustCached && this.threads.has(threadId) };
    this.held.set(threadId, hold);
    try {
      return await work();
    } finally {
      if (this.held.get(threadId) === hold) {
        this.held.delete(threadId);
        // What was kept over the budget for the holder's sake goes now.
        this.evictBeyondBounds(threadId);
      }
    }
  }

  /** The thread's checkpoints, caught up with its stream. */
  async read(threadId: string): Promise<ThreadCheckpoints> {
    const hold = this.held.get(threadId);
    const kept = this.threads.get(threadId);
    if (hold?.checked && kept) {
      this.touch(threadId);
      return kept.checkpoints;
    }
    const checkpoints = await this.catchUp(threadId);
    if (hold) hold.checked = true;
    return checkpoints;
  }

  private async catchUp(threadId: string): Promise<ThreadCheckpoints> {
    const stream = checkpointStreamOf(threadId);
    let cached = this.touch(threadId);
    let expected =
      cached.lastEventId === undefined
        ? undefined
        : { position: cached.lastPosition, eventId: cached.lastEventId };
    let from = expected?.position ?? 0;
    for (;;) {
      const page = await this.store.readStream(stream, {
        fromPosition: from,
        maxCount: this.batchSize,
      });
      let fresh: readonly RecordedEvent[] = page;
      if (expected) {
        const head = page[0];
        if (head?.streamPosition !== expected.position || head.eventId !== expected.eventId) {
          cached = new CachedThread();
          this.put(threadId, cached);
          expected = undefined;
          from = 0;
          continue;
        }
        fresh = page.slice(1);
        expected = undefined;
      }
      for (const event of fresh) {
        if (event.streamPosition <= cached.lastPosition) continue;
        this.fold(
          threadId,
          cached,
          event.streamPosition,
          event.eventId,
          parseCheckpointEvent(event),
        );
      }
      const last = page.at(-1);
      if (page.length < this.batchSize || !last) break;
      from = last.streamPosition + 1;
    }
    this.evictBeyondBounds(threadId);
    return cached.checkpoints;
  }

  /**
   * Folds an event this process just appended when it directly follows what the cache holds, so
   * the next read finds nothing new. Otherwise the next read catches up.
   */
  recordAppended(
    threadId: string,
    streamPosition: number,
    eventId: string,
    event: CheckpointEvent,
  ): void {
    const cached = this.threads.get(threadId);
    if (cached?.lastPosition === streamPosition - 1) {
      this.put(threadId, cached);
      this.fold(threadId, cached, streamPosition, eventId, event);
      this.evictBeyondBounds(threadId);
      return;
    }
    const hold = this.held.get(threadId);
    if (hold) hold.checked = false;
  }

  /**
   * Folds an event not appended yet at the position it will take: only for a held thread whose
   * cache was checked against the stream, where nobody else appends. Undefined when the position
   * cannot be known.
   */
  foldAhead(threadId: string, eventId: string, event: CheckpointEvent): number | undefined {
    const cached = this.threads.get(threadId);
    if (!this.held.get(threadId)?.checked || !cached) return undefined;
    const position = cached.lastPosition + 1;
    this.put(threadId, cached);
    this.fold(threadId, cached, position, eventId, event);
    this.evictBeyondBounds(threadId);
    return position;
  }

  /**
   * A checkpoint of a thread held and checked against its stream, as a base for a delta: folded
   * from the log, from this process's appends, or ahead from what a hold keeps back (which is
   * appended before anything written after it).
   */
  loggedCheckpoint(threadId: string, ns: string, id: string): DeltaBase | undefined {
    const cached = this.threads.get(threadId);
    if (!this.held.get(threadId)?.checked || !cached) return undefined;
    const record = cached.checkpoints.checkpoint(ns, id);
    if (!record || !('value' in record.checkpoint)) return undefined;
    const full = record.checkpoint.value;
    if (typeof full !== 'object' || full === null || Array.isArray(full)) return undefined;
    return { id, full, chain: record.chain, chainBytes: record.chainBytes };
  }

  /** Whether the caller keeps other writers off the thread's checkpoints (see `exclusively`). */
  isHeld(threadId: string): boolean {
    return this.held.has(threadId);
  }

  /** Whether the thread is cached. */
  has(threadId: string): boolean {
    return this.threads.has(threadId);
  }

  /** The position and id of the last event folded for a cached thread (position -1: none). */
  head(threadId: string): { position: number; eventId: string | undefined } | undefined {
    const cached = this.threads.get(threadId);
    return cached && { position: cached.lastPosition, eventId: cached.lastEventId };
  }

  forget(threadId: string): void {
    this.drop(threadId);
    const hold = this.held.get(threadId);
    if (hold) hold.checked = false;
  }

  /** Cached threads, least recently used first (for tests and diagnostics). */
  cachedThreadIds(): string[] {
    return [...this.threads.keys()];
  }

  /** The bytes kept over all cached threads (for tests and diagnostics). */
  cachedBytes(): number {
    return this.totalBytes;
  }

  private touch(threadId: string): CachedThread {
    const cached = this.threads.get(threadId) ?? new CachedThread();
    this.put(threadId, cached);
    return cached;
  }

  /** Keeps `cached` as the thread's, most recently used (it may be already). */
  private put(threadId: string, cached: CachedThread): void {
    this.drop(threadId);
    this.threads.set(threadId, cached);
    this.totalBytes += cached.bytes;
  }

  private drop(threadId: string): void {
    const cached = this.threads.get(threadId);
    if (!cached) return;
    this.threads.delete(threadId);
    this.totalBytes -= cached.bytes;
  }

  /** Folds an event into a thread, counting its bytes while the thread is the one cached. */
  private fold(
    threadId: string,
    cached: CachedThread,
    position: number,
    eventId: string,
    event: CheckpointEvent | undefined,
  ): void {
    if (event) {
      cached.checkpoints.apply(event);
      const bytes = checkpointEventHeapBytes(event);
      cached.bytes += bytes;
      // A catch-up may go on folding a thread dropped meanwhile: that one no longer counts.
      if (this.threads.get(threadId) === cached) this.totalBytes += bytes;
    }
    cached.lastPosition = position;
    cached.lastEventId = eventId;
  }

  /**
   * Drops least recently used threads until the cache is within its bounds, never one held and
   * never `current` (just used) unless it is larger than the whole budget by itself and nobody
   * holds it: it is then dropped alone, and the others stay.
   */
  private evictBeyondBounds(current: string): void {
    const mine = this.threads.get(current);
    if (mine && mine.bytes > this.maxBytes && !this.held.has(current)) this.drop(current);
    if (this.totalBytes <= this.maxBytes && this.threads.size <= this.maxThreads) return;
    // Deleting the entry a Map iterator is on is safe: it goes on with the next.
    for (const threadId of this.threads.keys()) {
      if (this.totalBytes <= this.maxBytes && this.threads.size <= this.maxThreads) return;
      if (threadId === current || this.held.has(threadId)) continue;
      this.drop(threadId);
    }
  }
}
