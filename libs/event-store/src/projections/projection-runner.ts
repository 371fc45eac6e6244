import { EventEmitter } from 'node:events';
import { In, type DataSource, type ObjectLiteral } from 'typeorm';
import type { EventStore, RecordedEvent, Subscription } from '../event-store.port.js';
import { compareLogPositions, LOG_START, type LogPosition } from '../log-position.js';
import type { Projection } from './projection.js';
import { projectionCheckpoints } from './projection-checkpoints.js';
import { foldBatch, rowKeyOf, rowsToRead } from './fold-batch.js';
import { RowCache } from './row-cache.js';
import { BatchStatement } from './batch-statement.js';

export interface ProjectionRunnerOptions {
  readonly batchSize?: number;
  /** Rows kept in memory between batches, so a hot row is not read again. Default 1,000. */
  readonly cachedRows?: number;
  readonly onError?: (error: unknown, projection: string) => void;
}

export class ProjectionTimeoutError extends Error {
  readonly code = 'projection_timeout';

  constructor(projection: string, timeoutMs: number) {
    super(`The ${projection} read model did not catch up within ${timeoutMs} ms`);
  }
}

const MAX_RETRY_DELAY_MS = 5_000;

/**
 * Keeps one read model up to date: reads the log from the projection's checkpoint, and writes the
 * touched rows and the new checkpoint in one transaction per batch, so a stop at any moment loses
 * or repeats nothing. Replicas may run the same projection: the checkpoint row is locked per batch
 * and a runner that finds it moved by another starts again from there.
 */
/** How long a stopping runner may take to project what was committed before it stopped. */
const STOP_DRAIN_MS = 5_000;

export class ProjectionRunner<Row extends ObjectLiteral> {
  /** How far this runner has read the log. */
  private cursor: LogPosition = LOG_START;
  /** The checkpoint as this runner last read or wrote it. */
  private persisted: LogPosition = LOG_START;
  private readonly progress = new EventEmitter();
  private running: Promise<void> | undefined;
  private stopping = false;
  private waiting: Subscription | undefined;
  private readonly batchSize: number;
  /**
   * Current while the checkpoint moves only by this runner's hand: any other writer of the rows
   * (another runner, a rebuild) moves it too, which the compare-and-set of the next batch sees.
   */
  private readonly rows: RowCache<Row>;
  private statement: BatchStatement<Row> | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly dataSource: DataSource,
    readonly projection: Projection<Row>,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.rows = new RowCache(options.cachedRows ?? 1_000);
    this.progress.setMaxListeners(0);
  }

  get position(): LogPosition {
    return this.cursor;
  }

  /** Follows the log until stopped. */
  start(): void {
    this.stopping = false;
    this.running ??= this.follow().finally(() => {
      this.running = undefined;
    });
  }

  /** A graceful stop: projects what was committed before the call (a few seconds at most) first. */
  async drainAndStop(): Promise<void> {
    if (this.running && !this.stopping) {
      const head = await this.store.headPosition().catch(() => undefined);
      if (head) await this.waitUntilPast(head, STOP_DRAIN_MS).catch(() => undefined);
    }
    await this.stop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.waiting?.close();
    await this.running;
  }

  /** Applies everything in the log now, then returns the number of events read. */
  async catchUp(): Promise<number> {
    this.rows.clear();
    this.persisted = await this.loadCheckpoint();
    this.cursor = this.persisted;
    return this.drain();
  }

  private async drain(): Promise<number> {
    let read = 0;
    for (;;) {
      const batch = await this.store.readLog({
        after: this.cursor,
        maxCount: this.batchSize,
        withDataOf: this.projection.eventTypes,
      });
      if (batch.length > 0) await this.apply(batch);
      read += batch.length;
      if (batch.length < this.batchSize || this.stopping) return read;
    }
  }

  /** Empties the read model and its checkpoint, then projects the whole log again. */
  async rebuild(): Promise<number> {
    await this.dataSource.transaction(async (manager) => {
      await projectionCheckpoints.ensure(manager, this.projection.name);
      await projectionCheckpoints.read(manager, this.projection.name, true);
      await manager.getRepository(this.projection.entity).clear();
      await projectionCheckpoints.write(manager, this.projection.name, LOG_START);
    });
    return this.catchUp();
  }

  /** Read your writes: resolves once the read model reflects the log up to `position`. */
  waitUntilPast(position: LogPosition, timeoutMs: number): Promise<void> {
    if (compareLogPositions(this.cursor, position) >= 0) return Promise.resolve();
    this.waiting?.readNow?.();
    return new Promise((resolve, reject) => {
      const onProgress = (cursor: LogPosition): void => {
        if (compareLogPositions(cursor, position) < 0) return;
        settle();
        resolve();
      };
      const timer = setTimeout(() => {
        settle();
        reject(new ProjectionTimeoutError(this.projection.name, timeoutMs));
      }, timeoutMs);
      const settle = (): void => {
        clearTimeout(timer);
        this.progress.off('progress', onProgress);
      };
      this.progress.on('progress', onProgress);
    });
  }

  private async follow(): Promise<void> {
    let retryDelay = 100;
    let resync = true;
    while (!this.stopping) {
      try {
        if (resync) await this.catchUp();
        else await this.drain();
        resync = false;
        await this.applyLive();
        retryDelay = 100;
      } catch (error) {
        if (this.isStopping()) return;
        this.options.onError?.(error, this.projection.name);
        resync = true;
        await new Promise((resolve) => setTimeout(resolve, retryDelay));
        retryDelay = Math.min(retryDelay * 2, MAX_RETRY_DELAY_MS);
      }
    }
  }

  /** Read through a method: `stop()` may flip the flag while the loop awaits. */
  private isStopping(): boolean {
    return this.stopping;
  }

  /**
   * Applies what one subscription from the cursor delivers, in batches of what it holds at once,
   * so each append is read once. Returns when stopped, or when the checkpoint was moved by
   * another runner and the cursor jumped (the caller reads on from there).
   */
  private async applyLive(): Promise<void> {
    if (this.stopping) return;
    // Appends of nothing it folds (a run's chunks, say) are passed over with the next one that
    // has something, or at the poll: `waitUntilPast` asks for them at once.
    const subscription = this.store.subscribeToLog({
      after: this.cursor,
      withDataOf: this.projection.eventTypes,
      wakesFor: this.projection.eventTypes,
    });
    this.waiting = subscription;
    const iterator = subscription[Symbol.asyncIterator]();
    // A pull left pending when the loop returns (the cursor jumped) may still fail as the
    // subscription closes: marked handled, so that failure is nobody's unhandled rejection.
    const pull = (): Promise<IteratorResult<RecordedEvent>> => {
      const pulled = iterator.next();
      pulled.catch(() => undefined);
      return pulled;
    };
    try {
      let next = pull();
      for (;;) {
        const first = await next;
        if (first.done || this.isStopping()) return;
        const batch = [first.value];
        next = pull();
        let ended = false;
        while (batch.length < this.batchSize) {
          const more = await Promise.race([next, nextTurn()]);
          if (more === undefined) break;
          if (more.done) {
            ended = true;
            break;
          }
          batch.push(more.value);
          next = pull();
        }
        const expected = batch.at(-1)?.logPosition;
        await this.apply(batch);
        if (ended || !expected || compareLogPositions(this.cursor, expected) !== 0) return;
      }
    } finally {
      this.waiting = undefined;
      await subscription.close();
    }
  }

  private async loadCheckpoint(): Promise<LogPosition> {
    return this.dataSource.transaction(async (manager) => {
      await projectionCheckpoints.ensure(manager, this.projection.name);
      return projectionCheckpoints.read(manager, this.projection.name);
    });
  }

  /**
   * A batch with nothing for this read model only moves the cursor: the checkpoint is written with
   * the next rows, and a restart reads those events again to no effect.
   */
  private async apply(batch: RecordedEvent[]): Promise<void> {
    const last = batch.at(-1)?.logPosition;
    if (!last) return;
    if (batch.some((event) => rowKeyOf(this.projection, event) !== undefined)) {
      const written = await this.writeRows(batch, last).catch((error: unknown) => {
        this.rows.clear();
        throw error;
      });
      if (written) {
        this.remember(written);
        this.persisted = last;
      } else {
        // Moved by another runner of this projection, or by a rebuild: continue from there.
        this.rows.clear();
        this.persisted = await projectionCheckpoints.read(
          this.dataSource.manager,
          this.projection.name,
        );
      }
      this.cursor = this.persisted;
    } else {
      this.cursor = last;
    }
    this.progress.emit('progress', this.cursor);
  }

  /**
   * The batch's rows and the checkpoint at `to`, in one statement, if the checkpoint is still
   * where this runner left it; undefined if not. The rows it starts from are read first when not
   * cached: should another writer change them meanwhile, it moves the checkpoint too.
   */
  private async writeRows(
    batch: RecordedEvent[],
    to: LogPosition,
  ): Promise<WrittenRows<Row> | undefined> {
    const { entity, key } = this.projection;
    const { known, missing } = this.rows.lookup(rowsToRead(this.projection, batch));
    const read =
      missing.length > 0
        ? await this.dataSource.getRepository(entity).findBy({ [key]: In(missing) } as never)
        : [];
    const { upserts, deletes } = foldBatch(this.projection, [...known, ...read], batch);
    this.statement ??= new BatchStatement(this.dataSource, this.projection);
    const advanced = await this.statement.write(this.persisted, to, upserts, deletes);
    return advanced ? { missing, read, upserts, deletes } : undefined;
  }

  /** What a committed batch leaves in the read model, for the next batches to start from. */
  private remember({ missing, read, upserts, deletes }: WrittenRows<Row>): void {
    const keyOf = (row: Row): string => String(row[this.projection.key]);
    for (const absent of missing) this.rows.remember(absent, null);
    for (const row of [...read, ...upserts]) this.rows.remember(keyOf(row), row);
    for (const deleted of deletes) this.rows.remember(deleted, null);
  }
}

interface WrittenRows<Row> {
  /** The keys not in the cache, and the rows the read of them found. */
  readonly missing: readonly string[];
  readonly read: readonly Row[];
  readonly upserts: readonly Row[];
  readonly deletes: readonly string[];
}

/** Resolves with nothing once the event loop has turned: what was already at hand came first. */
function nextTurn(): Promise<undefined> {
  return new Promise((resolve) => setImmediate(resolve, undefined));
}
