import { CountedClient } from '#libs/database';
import { ReadCoalescer } from './read-coalescer.js';
import { binaryTextArray } from './binary-text-array.js';
import { GroupCommit, type AppendRequest } from './group-commit.js';
import pg from 'pg';
import { AppendSignals, type AppendNotice } from '../append-signals.js';
import { CatchUpSubscription, type CatchUpOptions } from '../catch-up-subscription.js';
import { DuplicateEventIdError, WrongExpectedPositionError } from '../event-store.errors.js';
import {
  EventStore,
  type AppendOptions,
  type AppendResult,
  type DataOf,
  type EventToAppend,
  type ExpectedPosition,
  type LogSubscriptionOptions,
  type ReadLogOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type StreamSubscriptionOptions,
  type Subscription,
} from '../event-store.port.js';
import { compareLogPositions, LOG_START, type LogPosition } from '../log-position.js';
import { PostgresAppendChannel } from './postgres.append-channel.js';
import { migrate } from './postgres.migrator.js';
import { EVENT_STORE_MIGRATIONS } from './postgres.schema.js';
import { toRecordedEvent, type EventRow } from './postgres.rows.js';
import { ChainSealer } from '../audit/postgres.chain-sealer.js';
import { verifyChain } from '../audit/postgres.chain-verifier.js';
import { exportStream } from '../audit/postgres.chain-export.js';
import type { EventLogAudit } from '../audit/event-log-audit.js';

export interface PostgresEventStoreOptions {
  readonly connectionString: string;
  readonly poolSize?: number;
  /** How long an idle subscription waits before looking again when no wake-up arrives. */
  readonly pollIntervalMs?: number;
  readonly readBatchSize?: number;
  readonly notifyCoalesceMs?: number;
  /** Appends committed at once, in groups of one statement each (4); the rest wait for one. */
  readonly appendsInFlight?: number;
  /** How often the other processes listening on the database are counted (2 s). */
  readonly listenerCensusMs?: number;
  readonly onError?: (error: unknown) => void;
  /**
   * How soon after an append of this process the log's new events are sealed into its hash
   * chain (1 s); 0: only when verifying.
   */
  readonly sealIntervalMs?: number;
}

interface AppendRow {
  outcome:
    | 'appended'
    | 'duplicate'
    | 'duplicate_mismatch'
    | 'wrong_expected_position'
    | 'failed'
    | 'rolled_back';
  stream_position: string | null;
  transaction_id: string | null;
  global_position: string | null;
  /** Set when the append failed: SQLSTATE, constraint and message of the error. */
  error_code?: string | null;
  error_constraint?: string | null;
  error_message?: string | null;
}

/** Outcomes of appends that are in the log (a repeat of an append that landed included). */
const LANDED = new Set<AppendRow['outcome']>(['appended', 'duplicate']);

interface CopyAndAppendRow extends AppendRow {
  copy_outcome: 'appended' | 'empty' | 'wrong_expected_position' | 'rolled_back';
  copy_position: string;
  copy_global_position?: string | null;
}

/** Appends in one group: past this, the next group takes the rest. */
const MAX_GROUP = 32;

const EVENT_COLUMNS =
  'global_position, transaction_id, stream_id, stream_position, event_id, event_type, data, metadata, recorded_at';

const EXPECTED_CODES: Record<Exclude<ExpectedPosition, number>, number> = {
  no_stream: -1,
  any: -2,
  stream_exists: -3,
};

export class PostgresEventStore extends EventStore {
  private readonly signals = new AppendSignals();
  private readonly logReads = new ReadCoalescer<RecordedEvent[], LogReadDemand>(LOG_READ_SHARING);
  private readonly appends: GroupCommit<AppendRow>;
  private readonly channel: PostgresAppendChannel;
  private readonly catchUp: CatchUpOptions;
  private readonly onError: (error: unknown) => void;
  private readonly sealer: ChainSealer;

  private constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions,
  ) {
    super();
    this.onError = options.onError ?? (() => undefined);
    this.pool.on('error', this.onError);
    this.catchUp = {
      batchSize: options.readBatchSize ?? 500,
      pollIntervalMs: options.pollIntervalMs ?? 500,
    };
    this.appends = new GroupCommit((group) => this.commitGroup(group), {
      maxInFlight: options.appendsInFlight ?? 4,
      maxGroup: MAX_GROUP,
    });
    this.channel = new PostgresAppendChannel(
      pool,
      { connectionString: options.connectionString },
      this.signals,
      {
        coalesceMs: options.notifyCoalesceMs ?? 5,
        censusMs: options.listenerCensusMs ?? 2_000,
        onError: this.onError,
      },
    );
    this.sealer = new ChainSealer(pool, {
      intervalMs: options.sealIntervalMs ?? 1_000,
      onError: this.onError,
    });
    this.sealer.start();
  }

  /** Connects and brings the schema up to date. */
  static async connect(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    const pool = new pg.Pool({
      Client: CountedClient,
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
    });
    try {
      await migrate(pool, 'es_migrations', EVENT_STORE_MIGRATIONS);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresEventStore(pool, options);
  }

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('An append needs at least one event');
    const expected = options.expectedPosition ?? 'any';
    const started = performance.now();
    const row = await this.appends.submit({
      stream: streamId,
      expected: encodeExpected(expected),
      events: JSON.stringify(events),
    });
    return this.appendedOrThrown(streamId, events, expected, row, started);
  }

  /** What an append's outcome row means: its result, announced, or the error it is. */
  private appendedOrThrown(
    streamId: string,
    events: readonly EventToAppend[],
    expected: ExpectedPosition,
    row: AppendRow,
    started: number,
  ): AppendResult {
    switch (row.outcome) {
      case 'wrong_expected_position':
        throw new WrongExpectedPositionError(streamId, expected, Number(row.stream_position));
      case 'duplicate_mismatch':
        throw new DuplicateEventIdError(streamId, idsOf(events));
      case 'failed':
        throw row.error_code === '23505' && row.error_constraint === 'es_events_event_id_key'
          ? new DuplicateEventIdError(streamId, idsOf(events))
          : new Error(
              `Appending to ${streamId} failed: ${row.error_message ?? 'unknown error'} ` +
                `(SQLSTATE ${row.error_code ?? 'unknown'})`,
            );
      case 'rolled_back':
        throw new Error(`The append to ${streamId} was undone with the others of its transaction`);
      case 'duplicate':
        return toAppendResult(row);
      case 'appended': {
        const appended = toAppendResult(row);
        this.appendObserver?.(events.length, (performance.now() - started) / 1000);
        this.announce({
          streamId,
          ...appended,
          appended: { count: events.length, types: new Set(events.map((event) => event.type)) },
        });
        return appended;
      }
    }
  }

  /**
   * Commits a group of appends: one alone through `es_append`, several through `es_append_many`,
   * in one statement and one transaction either way. Each gets its own outcome row.
   */
  private async commitGroup(group: readonly AppendRequest[]): Promise<AppendRow[]> {
    const [only] = group;
    if (only && group.length === 1) {
      try {
        const { rows } = await this.pool.query<AppendRow>({
          name: 'es_append',
          text: 'select * from es_append($1, $2, $3)',
          values: [only.stream, only.expected, only.events],
        });
        return rows;
      } catch (error) {
        if (!(error instanceof pg.DatabaseError)) throw error;
        return [failedRow(error)];
      }
    }
    const { rows } = await this.pool.query<AppendRow & { ord: number }>({
      name: 'es_append_many',
      text: 'select * from es_append_many($1, $2, $3)',
      values: [
        group.map((append) => append.stream),
        group.map((append) => append.expected),
        binaryTextArray(group.map((append) => append.events)),
      ],
    });
    const outcomes: AppendRow[] = [];
    for (const row of rows) outcomes[row.ord] = row;
    return outcomes;
  }

  /** In one statement: the events go from one stream to the other inside PostgreSQL. */
  override async copyStream(source: string, target: string): Promise<AppendResult | undefined> {
    const started = performance.now();
    const { rows } = await this.pool.query<{
      outcome: 'appended' | 'empty' | 'wrong_expected_position';
      stream_position: string;
      transaction_id: string | null;
      global_position: string | null;
    }>({
      name: 'es_copy_stream',
      text: 'select * from es_copy_stream($1, $2)',
      values: [source, target],
    });
    const [row] = rows;
    if (!row) throw new Error('es_copy_stream returned no row');
    if (row.outcome === 'empty') return undefined;
    if (row.outcome === 'wrong_expected_position') {
      throw new WrongExpectedPositionError(target, 'no_stream', Number(row.stream_position));
    }
    const copied = toAppendResult(row);
    this.appendObserver?.(copied.streamPosition + 1, (performance.now() - started) / 1000);
    this.announce({ streamId: target, ...copied });
    return copied;
  }

  /** Both in one statement and one transaction: an append refused undoes the copy. */
  override async copyStreamAndAppend(
    source: string,
    target: string,
    streamId: string,
    events: readonly EventToAppend[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new RangeError('An append needs at least one event');
    const expected = options.expectedPosition ?? 'any';
    const started = performance.now();
    let row: CopyAndAppendRow | undefined;
    try {
      ({
        rows: [row],
      } = await this.pool.query<CopyAndAppendRow>({
        name: 'es_copy_stream_and_append',
        text: 'select * from es_copy_stream_and_append($1, $2, $3, $4, $5)',
        values: [source, target, streamId, encodeExpected(expected), JSON.stringify(events)],
      }));
    } catch (error) {
      if (!(error instanceof pg.DatabaseError)) throw error;
      row = { ...failedRow(error), copy_outcome: 'rolled_back', copy_position: '-1' };
    }
    if (!row) throw new Error('es_copy_stream_and_append returned no row');
    if (row.copy_outcome === 'wrong_expected_position') {
      throw new WrongExpectedPositionError(target, 'no_stream', Number(row.copy_position));
    }
    // An append refused rolls the copy back and says so ('rolled_back'): 'appended' landed.
    if (row.copy_outcome === 'appended') {
      const copied = toAppendResult({
        stream_position: row.copy_position,
        transaction_id: row.transaction_id,
        global_position: row.copy_global_position ?? null,
      });
      this.appendObserver?.(copied.streamPosition + 1, (performance.now() - started) / 1000);
      this.announce({ streamId: target, ...copied });
    }
    return this.appendedOrThrown(streamId, events, expected, row, started);
  }

  /** In one statement and one transaction: the first refusal undoes the appends before it. */
  override async appendAll(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    for (const part of appends) {
      if (part.events.length === 0) throw new RangeError('An append needs at least one event');
      if (part.expectedEventId !== undefined && typeof part.expectedPosition !== 'number') {
        throw new RangeError('expectedEventId needs a numeric expectedPosition');
      }
    }
    const expected = appends.map((part) => part.expectedPosition ?? 'any');
    const started = performance.now();
    const { rows } = await this.pool.query<AppendRow & { ord: number }>({
      name: 'es_append_all',
      text: 'select * from es_append_all($1, $2, $3, $4)',
      values: [
        appends.map((part) => part.streamId),
        expected.map(encodeExpected),
        appends.map((part) => part.expectedEventId ?? null),
        binaryTextArray(appends.map((part) => JSON.stringify(part.events))),
      ],
    });
    const refused = rows.find((row) => !LANDED.has(row.outcome) && row.outcome !== 'rolled_back');
    if (refused) {
      const part = appends[refused.ord];
      if (!part)
        throw new Error(`es_append_all refused an append it was not given (${refused.ord})`);
      this.appendedOrThrown(
        part.streamId,
        part.events,
        expected[refused.ord] ?? 'any',
        refused,
        started,
      );
    }
    const outcomes: AppendRow[] = [];
    for (const row of rows) outcomes[row.ord] = row;
    return appends.map((part, ord) => {
      const row = outcomes[ord];
      if (!row) throw new Error(`es_append_all returned no row for ${part.streamId}`);
      return this.appendedOrThrown(
        part.streamId,
        part.events,
        expected[ord] ?? 'any',
        row,
        started,
      );
    });
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const result = await this.pool.query<EventRow>({
      name: backwards ? 'es_read_stream_backwards' : 'es_read_stream_forwards',
      text: `select ${EVENT_COLUMNS} from es_events
              where stream_id = $1 and stream_position ${backwards ? '<=' : '>='} $2
              order by stream_position ${backwards ? 'desc' : 'asc'}
              limit $3`,
      values: [
        streamId,
        options.fromPosition ?? (backwards ? Number.MAX_SAFE_INTEGER : 0),
        options.maxCount ?? null,
      ],
    });
    return result.rows.map(toRecordedEvent);
  }

  /**
   * Transactions commit out of order, so a row with a higher position can be visible before a
   * lower one. Only rows of transactions older than every transaction still running are read:
   * those can no longer be joined by anything that sorts before them.
   */
  readLog(options: ReadLogOptions = {}): Promise<RecordedEvent[]> {
    const { after, maxCount } = options;
    return this.logReads.read(
      String(maxCount ?? ''),
      { after: after ?? LOG_START, maxCount, dataOf: options.withDataOf },
      (demand) => this.queryLog({ after: demand.after, maxCount }, demand.dataOf),
    );
  }

  /** The data of events whose type is not in `dataOf` stays in PostgreSQL (and in its TOAST). */
  private async queryLog(options: ReadLogOptions, dataOf: DataOf): Promise<RecordedEvent[]> {
    const after = options.after;
    const result = await this.pool.query<EventRow>({
      name: 'es_read_log',
      text: `select global_position, transaction_id, stream_id, stream_position, event_id,
                    event_type,
                    case when $4::text[] is null or event_type = any($4::text[])
                         then data else '{}'::jsonb end as data,
                    metadata, recorded_at
               from es_events
              where (transaction_id, global_position) > ($1::xid8, $2::bigint)
                and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
              order by transaction_id, global_position
              limit $3`,
      values: [
        after && after.commit > 0n ? after.commit.toString() : '0',
        after ? after.prepare.toString() : '-1',
        options.maxCount ?? null,
        dataOf ? [...dataOf] : null,
      ],
    });
    return result.rows.map(toRecordedEvent);
  }

  async headPosition(): Promise<LogPosition> {
    const result = await this.pool.query<{ transaction_id: string; global_position: string }>({
      name: 'es_head',
      text: `select transaction_id, global_position from es_events
              order by transaction_id desc, global_position desc limit 1`,
    });
    const [row] = result.rows;
    return row
      ? { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) }
      : LOG_START;
  }

  subscribeToStream(streamId: string, options: StreamSubscriptionOptions = {}): Subscription {
    return new CatchUpSubscription<number>(
      {
        read: (after, maxCount) =>
          this.readStream(streamId, { fromPosition: (after ?? -1) + 1, maxCount }),
        cursorOf: (event) => event.streamPosition,
        isAhead: (notice, cursor) =>
          notice.streamId === streamId && notice.streamPosition > (cursor ?? -1),
        skip: (notice, cursor) => skippable(notice, streamId, cursor, options.onlyTypes),
        listen: (listener) => {
          this.listenToOtherProcesses();
          return this.signals.onStream(streamId, listener);
        },
      },
      options.afterPosition,
      this.catchUp,
    );
  }

  subscribeToLog(options: LogSubscriptionOptions = {}): Subscription {
    return new CatchUpSubscription<LogPosition>(
      {
        read: (after, maxCount) =>
          this.readLog({ after, maxCount, withDataOf: options.withDataOf }),
        cursorOf: (event) => event.logPosition,
        isAhead: (notice, cursor) => !cursor || compareLogPositions(notice.logPosition, cursor) > 0,
        ignores: (notice) => holdsNoneOf(notice, options.wakesFor),
        listen: (listener) => {
          this.listenToOtherProcesses();
          return this.signals.onLog(listener);
        },
      },
      options.after,
      { ...this.catchUp, onCaughtUp: options.onCaughtUp, keeps: options.keeps },
    );
  }

  async deleteStream(streamId: string): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      await client.query('select 1 from es_streams where stream_id = $1 for update', [streamId]);
      await client.query('delete from es_events where stream_id = $1', [streamId]);
      await client.query('delete from es_streams where stream_id = $1', [streamId]);
      // The hash chain keeps the deleted events' seals: this says their absence is no tampering.
      await client.query('insert into es_stream_deletions (stream_id) values ($1)', [streamId]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  }

  override audit(): EventLogAudit {
    return {
      verify: async (published) => {
        await this.sealer.sealPending(true);
        return verifyChain(this.pool, published);
      },
      exportStream: async (streamId, period) => {
        await this.sealer.sealPending(true);
        return exportStream(this.pool, streamId, period);
      },
    };
  }

  async close(): Promise<void> {
    await this.sealer.close();
    await this.channel.close();
    await this.pool.end();
  }

  private announce(notice: AppendNotice): void {
    this.sealer.noteAppend(notice.logPosition);
    this.signals.publish(notice);
    this.channel.announce(notice);
  }

  private listenToOtherProcesses(): void {
    this.channel.listen().catch(this.onError);
  }
}

/**
 * Past an append of this process that directly follows the cursor and holds none of the types
 * looked for: nothing in it is wanted and nothing before it is left unread.
 */
function skippable(
  notice: AppendNotice,
  streamId: string,
  cursor: number | undefined,
  onlyTypes: ReadonlySet<string> | undefined,
): number | undefined {
  const held = notice.appended;
  if (!held || notice.streamId !== streamId || !holdsNoneOf(notice, onlyTypes)) return undefined;
  return notice.streamPosition - held.count === (cursor ?? -1) ? notice.streamPosition : undefined;
}

/** An append of this process that holds none of the types: false when it is not known. */
function holdsNoneOf(notice: AppendNotice, types: ReadonlySet<string> | undefined): boolean {
  const held = notice.appended;
  if (!types || !held) return false;
  for (const type of held.types) if (types.has(type)) return false;
  return true;
}

function encodeExpected(expected: ExpectedPosition): number {
  if (typeof expected !== 'number') return EXPECTED_CODES[expected];
  if (!Number.isSafeInteger(expected) || expected < -1) {
    throw new RangeError(`Not a stream position: ${expected}`);
  }
  return expected;
}

function toAppendResult(
  row: Pick<AppendRow, 'stream_position' | 'transaction_id' | 'global_position'>,
): AppendResult {
  return {
    streamPosition: Number(row.stream_position),
    logPosition: {
      commit: BigInt(row.transaction_id ?? 0),
      prepare: BigInt(row.global_position ?? 0),
    },
  };
}

/** A log read: from where, how many at most, and the types whose data it needs. */
interface LogReadDemand {
  readonly after: LogPosition;
  readonly maxCount: number | undefined;
  readonly dataOf: DataOf;
}

/**
 * Log reads asked together share one query, from the earliest position, with the data of every
 * type one of them needs. A later reader gets what follows its own position, unless the query
 * came back full: then what follows may not all be there, and it reads alone.
 */
const LOG_READ_SHARING = {
  merge: (gathered: LogReadDemand, asked: LogReadDemand): LogReadDemand => ({
    after: compareLogPositions(asked.after, gathered.after) < 0 ? asked.after : gathered.after,
    maxCount: gathered.maxCount,
    dataOf: gathered.dataOf && asked.dataOf && new Set([...gathered.dataOf, ...asked.dataOf]),
  }),
  serve: (
    events: RecordedEvent[],
    asked: LogReadDemand,
    gathered: LogReadDemand,
  ): RecordedEvent[] | undefined => {
    if (compareLogPositions(asked.after, gathered.after) === 0) return events;
    if (asked.maxCount !== undefined && events.length >= asked.maxCount) return undefined;
    return events.filter((event) => compareLogPositions(event.logPosition, asked.after) > 0);
  },
};

function failedRow(error: pg.DatabaseError): AppendRow {
  return {
    outcome: 'failed',
    stream_position: null,
    transaction_id: null,
    global_position: null,
    error_code: error.code ?? null,
    error_constraint: error.constraint ?? null,
    error_message: error.message,
  };
}

function idsOf(events: readonly EventToAppend[]): string[] {
  return events.map((event) => event.eventId);
}
