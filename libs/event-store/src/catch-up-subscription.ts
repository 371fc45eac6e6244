import type { AppendNotice, WakeListener } from './append-signals.js';
import type { RecordedEvent, Subscription } from './event-store.port.js';

export interface CatchUpSource<Cursor> {
  read(after: Cursor | undefined, maxCount: number): Promise<RecordedEvent[]>;
  cursorOf(event: RecordedEvent): Cursor;
  /** Whether the notice names an event past the cursor that the reader has not seen yet. */
  isAhead(notice: AppendNotice, cursor: Cursor | undefined): boolean;
  /**
   * The cursor past an append that holds nothing the subscriber looks for and directly follows
   * the cursor, so it need not be read; undefined when it must be.
   */
  skip?(notice: AppendNotice, cursor: Cursor | undefined): Cursor | undefined;
  /** An append that need not wake the subscriber: it is read with the next one that does. */
  ignores?(notice: AppendNotice): boolean;
  listen(listener: WakeListener): () => void;
}

export interface CatchUpOptions {
  readonly batchSize: number;
  /** Called once, the first time a read finds no more than there was: the subscriber caught up. */
  readonly onCaughtUp?: () => void;
  /** The events to deliver; the cursor moves past the others. Omitted: every event. */
  readonly keeps?: (event: RecordedEvent) => boolean;
  /** The fallback when no wake-up arrives: how long an idle subscription waits before looking again. */
  readonly pollIntervalMs: number;
}

const FIRST_RETRY_MS = 1;

/**
 * Reads from a cursor until it runs dry, then sleeps until an append is signalled (or the poll
 * interval passes) and reads again. A signalled event that is not readable yet (an older
 * transaction still open) is retried with a short, growing back-off.
 */
export class CatchUpSubscription<Cursor> implements Subscription {
  private cursor: Cursor | undefined;
  private awaited: AppendNotice | undefined;
  private wakeCount = 0;
  private closed = false;
  private caughtUp = false;
  private iterator: AsyncGenerator<RecordedEvent> | undefined;
  private wake: (() => void) | undefined;
  private unlisten: (() => void) | undefined;

  constructor(
    private readonly source: CatchUpSource<Cursor>,
    after: Cursor | undefined,
    private readonly options: CatchUpOptions,
  ) {
    this.cursor = after;
  }

  /** Every call continues the same iteration: a subscription has one cursor. */
  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    if (!this.iterator) {
      this.unlisten = this.source.listen((notice) => {
        this.onAppend(notice);
      });
      this.iterator = this.events();
    }
    return this.iterator;
  }

  readNow(): void {
    this.wakeCount += 1;
    this.wake?.();
  }

  close(): Promise<void> {
    this.closed = true;
    this.unlisten?.();
    this.wake?.();
    return Promise.resolve();
  }

  private async *events(): AsyncGenerator<RecordedEvent> {
    let retryMs = FIRST_RETRY_MS;
    try {
      while (!this.closed) {
        const wakesBeforeRead = this.wakeCount;
        const batch = await this.source.read(this.cursor, this.options.batchSize);
        for (const event of batch) {
          if (this.isClosed()) return;
          this.cursor = this.source.cursorOf(event);
          if (this.options.keeps && !this.options.keeps(event)) continue;
          yield event;
        }
        if (batch.length === this.options.batchSize) continue;
        if (!this.caughtUp) {
          this.caughtUp = true;
          this.options.onCaughtUp?.();
        }
        if (this.awaited && this.source.isAhead(this.awaited, this.cursor)) {
          if (retryMs <= this.options.pollIntervalMs) {
            await this.sleep(retryMs);
            retryMs *= 2;
            continue;
          }
        }
        this.awaited = undefined;
        retryMs = FIRST_RETRY_MS;
        if (this.wakeCount !== wakesBeforeRead) continue;
        await this.sleep(this.options.pollIntervalMs);
      }
    } finally {
      await this.close();
    }
  }

  /** Read through a method: `close()` may flip the flag while the generator awaits. */
  private isClosed(): boolean {
    return this.closed;
  }

  private onAppend(notice: AppendNotice | undefined): void {
    const past = notice && this.source.skip?.(notice, this.cursor);
    if (past !== undefined) {
      this.cursor = past;
      return;
    }
    if (notice && this.source.ignores?.(notice)) return;
    this.wakeCount += 1;
    if (notice && this.source.isAhead(notice, this.cursor)) this.awaited = notice;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
