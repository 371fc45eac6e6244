import { EventEmitter } from 'node:events';
import { In, type DataSource, type ObjectLiteral } from 'typeorm';
import type { EventStore, RecordedEvent, Subscription } from '../event-store.port.js';
import {
  compareLogPositions,
  formatLogPosition,
  LOG_START,
  type LogPosition,
} from '../log-position.js';
import type { Projection } from './projection.js';
import { projectionCheckpoints } from './projection-checkpoints.js';
import { foldBatch, rowKeyOf, rowsToRead } from './fold-batch.js';
import { RowCache } from './row-cache.js';
import { BatchStatement } from './batch-statement.js';
import {
  failedEventOf,
  ProjectionStuckError,
  type ProjectionFailure,
} from './projection-failure.js';

export interface ProjectionRunnerOptions {
  readonly batchSize?: number;
  /** Rows kept in memory between batches, so a hot row is not read again. Default 1,000. */
  readonly cachedRows?: number;
  /**
   * Called once when the read model gets stuck (the same event, or the same read of the log,
   * failed on consecutive attempts), however many retries and callers follow; not per retry.
   */
  readonly onStuck?: (failure: ProjectionFailure) => void;
  /** Called once when a stuck read model moves again. */
  readonly onRecovered?: (failure: ProjectionFailure) => void;
}

export class ProjectionTimeoutError extends Error {
  readonly code = 'projection_timeout';

  constructor(projection: string, timeoutMs: number) {
    super(`The ${projection} read model did not catch up within ${timeoutMs} ms`);
  }
}

const MAX_RETRY_DELAY_MS = 5_000;
/**
 * Failed attempts in a row that make a read model stuck. The first retry applies the events of
 * the failed batch one at a time, so the second failure names the event that fails.
 */
const STUCK_AFTER_ATTEMPTS = 2;

/** How long a stopping runner may take to project what was committed before it stopped. */
const STOP_DRAIN_MS = 5_000;

/**
 * Keeps one read model up to date: reads the log from the projection's checkpoint, and writes the
 * touched rows and the new checkpoint in one transaction per batch, so a stop at any moment loses
 * or repeats nothing. Replicas may run the same projection: the checkpoint row is locked per batch
 * and a runner that finds it moved by another starts again from there.
 */
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
  /** The batch whose write failed last, for the failure to name its event. */
  private failedBatch: readonly RecordedEvent[] | undefined;
  /** Up to here, after a failed batch, events are applied one at a time. */
  private isolateUntil: LogPosition | undefined;
  private failedAttempts = 0;
  private failingSince: string | undefined;
  private stuck: ProjectionFailure | undefined;
  private stuckTimes = 0;
  /**
   * Told, for each batch that changed rows, how long its oldest event that does waited between
   * being recorded and reaching the read model (seconds): the delay a reader of it sees.
   */
  appliedObserver: ((projection: string, delaySeconds: number) => void) | undefined;

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

  /** Why the read model does not move, while it does not (see `STUCK_AFTER_ATTEMPTS`). */
  get failure(): ProjectionFailure | undefined {
    return this.stuck;
  }

  /** How many times this runner got stuck since it was made. */
  get failures(): number {
    return this.stuckTimes;
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
      const maxCount = this.batchLimit();
      const batch = await this.store.readLog({
        after: this.cursor,
        maxCount,
        withDataOf: this.projection.eventTypes,
      });
      if (batch.length > 0) await this.apply(batch);
      read += batch.length;
      if (batch.length < maxCount || this.stopping) return read;
    }
  }

  /** One event at a time up to the end of a batch that failed, so a failure names its event. */
  private batchLimit(): number {
    if (this.isolateUntil && compareLogPositions(this.cursor, this.isolateUntil) < 0) return 1;
    this.isolateUntil = undefined;
    return this.batchSize;
  }

  /** Empties the read model and its checkpoint, then projects the whole log again. */
  async rebuild(): Promise<number> {
    await this.empty();
    return this.catchUp();
  }

  /** Empties the read model and its checkpoint: the log is to be projected again from its start. */
  async empty(): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await projectionCheckpoints.ensure(manager, this.projection.name);
      await projectionCheckpoints.read(manager, this.projection.name, true);
      await manager.getRepository(this.projection.entity).clear();
      await projectionCheckpoints.write(manager, this.projection.name, LOG_START);
    });
    this.rows.clear();
    this.persisted = LOG_START;
    this.cursor = LOG_START;
  }

  /**
   * Applies a batch of the log that another read (see `rebuildTogether`), following on from this
   * runner's cursor; returns whether the cursor now stands at its end (not when another writer of
   * the read model moved the checkpoint meanwhile).
   */
  async project(batch: RecordedEvent[]): Promise<boolean> {
    const last = batch.at(-1)?.logPosition;
    await this.apply(batch);
    return last !== undefined && compareLogPositions(this.cursor, last) === 0;
  }

  /**
   * Read your writes: resolves once the read model reflects the log up to `position`. Rejects
   * with `ProjectionTimeoutError` after `timeoutMs`, and at once with `ProjectionStuckError`
   * while (or as soon as) the read model is stuck on an event it cannot apply.
   */
  waitUntilPast(position: LogPosition, timeoutMs: number): Promise<void> {
    if (compareLogPositions(this.cursor, position) >= 0) return Promise.resolve();
    if (this.stuck) return Promise.reject(new ProjectionStuckError(this.stuck));
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
      const onStuck = (failure: ProjectionFailure): void => {
        settle();
        reject(new ProjectionStuckError(failure));
      };
      const settle = (): void => {
        clearTimeout(timer);
        this.progress.off('progress', onProgress);
        this.progress.off('stuck', onStuck);
      };
      this.progress.on('progress', onProgress);
      this.progress.on('stuck', onStuck);
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
        this.recovered();
        retryDelay = 100;
        await this.applyLive();
      } catch (error) {
        if (this.isStopping()) return;
        this.failed(error);
        resync = true;
        await new Promise((resolve) => setTimeout(resolve, retryDelay));
        retryDelay = Math.min(retryDelay * 2, MAX_RETRY_DELAY_MS);
      }
    }
  }

  /** Counts a failed attempt; the second in a row makes the read model stuck, said once. */
  private failed(error: unknown): void {
    const batch = this.failedBatch;
    this.failedBatch = undefined;
    const last = batch?.at(-1)?.logPosition;
    if (last && (!this.isolateUntil || compareLogPositions(last, this.isolateUntil) > 0)) {
      this.isolateUntil = last;
    }
    const event = batch?.length === 1 ? batch[0] : undefined;
    this.failedAttempts += 1;
    this.failingSince ??= new Date().toISOString();
    const failure: ProjectionFailure = {
      projection: this.projection.name,
      event: event ? failedEventOf(event) : this.stuck?.event,
      after: formatLogPosition(this.cursor),
      error: error instanceof Error ? error.message : String(error),
      since: this.failingSince,
      attempts: this.failedAttempts,
    };
    if (this.failedAttempts < STUCK_AFTER_ATTEMPTS) return;
    const first = this.stuck === undefined;
    this.stuck = failure;
    if (!first) return;
    this.stuckTimes += 1;
    this.options.onStuck?.(failure);
    this.progress.emit('stuck', failure);
  }

  /** The log was read up to its head without a failure: a stuck read model moves again. */
  private recovered(): void {
    this.failedAttempts = 0;
    this.failingSince = undefined;
    const stuck = this.stuck;
    if (!stuck) return;
    this.stuck = undefined;
    this.options.onRecovered?.(stuck);
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
        const limit = this.batchLimit();
        while (batch.length < limit) {
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
        this.failedBatch = batch;
        throw error;
      });
      if (written) {
        this.remember(written);
        this.persisted = last;
        this.observeDelay(batch);
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

  private observeDelay(batch: readonly RecordedEvent[]): void {
    if (!this.appliedObserver) return;
    const oldest = batch.find((event) => rowKeyOf(this.projection, event) !== undefined);
    if (!oldest) return;
    const delayMs = Math.max(0, Date.now() - oldest.recordedAt.getTime());
    this.appliedObserver(this.projection.name, delayMs / 1000);
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
    const events = this.projection.prepare
      ? await this.projection.prepare(batch, this.store)
      : batch;
    const { upserts, deletes } = foldBatch(this.projection, [...known, ...read], events);
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
