import type { EventStore, RecordedEvent } from '#libs/event-store';
import {
  checkpointStreamOf,
  parseCheckpointEvent,
  type CheckpointEvent,
} from './checkpoint-events.js';
import { ThreadCheckpoints } from './thread-checkpoints.js';

export interface ThreadCheckpointCacheOptions {
  /** Threads kept in memory, least recently used dropped first. Default 100. */
  readonly maxCachedThreads?: number;
  /**
   * Events kept in memory over all threads; least recently used threads are dropped beyond it
   * (never the thread being read). Default 50,000.
   */
  readonly maxCachedEvents?: number;
  /** Events per read query while catching up. Default 500. */
  readonly readBatchSize?: number;
}

class CachedThread {
  readonly checkpoints = new ThreadCheckpoints();
  /** Stream position of the last event folded in; -1 before any. */
  lastPosition = -1;
  lastEventId: string | undefined;
  eventCount = 0;

  fold(position: number, eventId: string, event: CheckpointEvent | undefined): void {
    if (event) this.checkpoints.apply(event);
    this.lastPosition = position;
    this.lastEventId = eventId;
    this.eventCount += 1;
  }
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
  private readonly maxThreads: number;
  private readonly maxEvents: number;
  private readonly batchSize: number;

  constructor(
    private readonly store: EventStore,
    options: ThreadCheckpointCacheOptions = {},
  ) {
    this.maxThreads = Math.max(1, options.maxCachedThreads ?? 100);
    this.maxEvents = Math.max(0, options.maxCachedEvents ?? 50_000);
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
      if (this.held.get(threadId) === hold) this.held.delete(threadId);
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
          this.threads.set(threadId, cached);
          expected = undefined;
          from = 0;
          continue;
        }
        fresh = page.slice(1);
        expected = undefined;
      }
      for (const event of fresh) {
        if (event.streamPosition <= cached.lastPosition) continue;
        cached.fold(event.streamPosition, event.eventId, parseCheckpointEvent(event));
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
      cached.fold(streamPosition, eventId, event);
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
    cached.fold(position, eventId, event);
    return position;
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
    this.threads.delete(threadId);
    const hold = this.held.get(threadId);
    if (hold) hold.checked = false;
  }

  /** Cached threads, least recently used first (for tests and diagnostics). */
  cachedThreadIds(): string[] {
    return [...this.threads.keys()];
  }

  private touch(threadId: string): CachedThread {
    const cached = this.threads.get(threadId) ?? new CachedThread();
    this.threads.delete(threadId);
    this.threads.set(threadId, cached);
    return cached;
  }

  private evictBeyondBounds(keep: string): void {
    let events = 0;
    for (const cached of this.threads.values()) events += cached.eventCount;
    for (const [threadId, cached] of this.threads) {
      if (this.threads.size <= this.maxThreads && events <= this.maxEvents) return;
      if (threadId === keep || this.held.has(threadId)) continue;
      this.threads.delete(threadId);
      events -= cached.eventCount;
    }
  }
}
