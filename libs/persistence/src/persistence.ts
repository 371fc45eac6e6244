import { Logger } from '@nestjs/common';
import pg from 'pg';
import { DataSource, type ObjectLiteral } from 'typeorm';
import {
  CountedClient,
  databaseAvailability,
  isDatabaseUnavailable,
  provideDatabase,
  type DatabaseAvailabilityReports,
  type ProvidedDatabase,
} from '#libs/database';
import {
  connectEventStore,
  describeProjectionFailure,
  migrate,
  PROJECTION_MIGRATIONS,
  ProjectionRunner,
  type EventStore,
  type Migration,
  type Projection,
  type ProjectionFailure,
} from '#libs/event-store';
import { DEFAULT_POOL_SIZES, type PoolSizes } from './connection-budget.js';

export type AnyProjection = Projection<ObjectLiteral>;

/**
 * Read models are derived from the log, and each batch moves its projection's checkpoint in the
 * same transaction: a batch lost in a crash is projected again from the durable log at the next
 * start. So their commits do not wait for the WAL to reach the disk (the log's appends and the
 * run queue, on other pools, still do).
 */
export const READ_MODEL_SESSION_OPTIONS = '-c synchronous_commit=off';

export interface PersistenceOptions {
  /** An external PostgreSQL server; without it an embedded one runs in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** The database to use on the embedded server. */
  readonly databaseName?: string;
  /** An `esdb://` URL puts the event log in EventStoreDB instead of PostgreSQL. */
  readonly eventStoreUrl: string | undefined;
  /** Read-model and other table migrations of the app, applied after the projection checkpoints. */
  readonly migrations: readonly Migration[];
  readonly projections: readonly AnyProjection[];
  /** The most connections each pool opens (splitConnectionBudget); 10 each by default. */
  readonly poolSizes?: PoolSizes;
  readonly onError: (error: unknown) => void;
  /**
   * The event store everything else is given, made of the one connected, once the migrations ran
   * (the runtime's encryption wraps it here).
   */
  readonly wrapEventStore?: (store: EventStore, pool: pg.Pool) => Promise<EventStore>;
}

export interface Persistence {
  readonly database: ProvidedDatabase;
  readonly eventStore: EventStore;
  readonly dataSource: DataSource;
  /** A plain pool for the queries that read models and queues need beyond TypeORM. */
  readonly pool: pg.Pool;
  readonly runners: readonly ProjectionRunner<ObjectLiteral>[];
  close(): Promise<void>;
}

/**
 * One log line when a read model gets stuck (naming the event it cannot apply), one when it moves
 * again; never one per retry or per caller. `GET /ok` and the metrics say it too.
 */
const PROJECTION_REPORTS = {
  onStuck: (failure: ProjectionFailure): void => {
    // A database that cannot be reached is said once, as such (DATABASE_REPORTS).
    if (databaseAvailability.noticeFailure(failure.error)) return;
    new Logger('projections').error(
      `${describeProjectionFailure(failure)}. Retried until it applies; meanwhile what reads it ` +
        'answers 503 and GET /ok answers 503',
    );
  },
  onRecovered: (failure: ProjectionFailure): void => {
    if (isDatabaseUnavailable(failure.error)) return;
    new Logger('projections').log(
      `The ${failure.projection} read model moves again, after ${failure.attempts} failed attempts`,
    );
  },
};

/**
 * One log line when the database cannot be reached (its first error), one when it answers again;
 * never one per request, pool or retry in between. `GET /ok` says it too (libs/database).
 */
const DATABASE_REPORTS: DatabaseAvailabilityReports = {
  onDown: (state) => {
    new Logger('database').error(
      `The database cannot be reached: ${state.error}. Until it answers again, GET /ok and the ` +
        'routes that need it answer 503',
    );
  },
  onUp: (outage, downForMs) => {
    new Logger('database').log(
      `The database is reachable again after ${(downForMs / 1000).toFixed(1)}s ` +
        `(${outage.failures} errors meanwhile)`,
    );
  },
};

/** A `select 1` on a connection of its own, closed at once: the server takes new sessions again. */
async function probeNewConnection(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_500 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What the embedded server's supervisor says (it died, it is back), in the process's log. */
function reportEmbeddedServer(level: 'info' | 'error', message: string): void {
  const logger = new Logger('embedded-postgres');
  if (level === 'error') logger.error(message);
  else logger.log(message);
}

/** The database, the event log and the read models of one app, opened and migrated in order. */
export async function openPersistence(options: PersistenceOptions): Promise<Persistence> {
  const database = await provideDatabase({
    databaseUrl: options.databaseUrl,
    dataDir: options.dataDir,
    databaseName: options.databaseName,
    report: reportEmbeddedServer,
  });
  // An unreachable database is reported once per outage, not once per pool or connection.
  const onError = (error: unknown): void => {
    if (!databaseAvailability.noticeFailure(error)) options.onError(error);
  };
  const closers: (() => Promise<void>)[] = [() => database.stop()];
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(options.onError);
  };
  const sizes = options.poolSizes ?? DEFAULT_POOL_SIZES;
  try {
    const connected = await connectEventStore({
      eventStoreUrl: options.eventStoreUrl,
      databaseUrl: database.url,
      poolSize: sizes.eventStore,
      onError,
    });
    closers.push(() => connected.close());
    const pool = new pg.Pool({
      Client: CountedClient,
      connectionString: database.url,
      max: sizes.queries,
    });
    pool.on('error', onError);
    closers.push(() => pool.end());
    const probe = async (): Promise<void> => {
      await pool.query('select 1');
    };
    databaseAvailability.configure({
      probe,
      recoveryProbe: () => probeNewConnection(database.url),
      // Requests waiting for a connection: the pool is busy with a database that answers (one
      // that does not fails those requests, which says so), and /ok need not queue behind them.
      busy: () => pool.waitingCount > 0,
      reports: DATABASE_REPORTS,
    });
    closers.push(() => {
      databaseAvailability.release(probe);
      return Promise.resolve();
    });
    await migrate(pool, 'read_model_migrations', [...PROJECTION_MIGRATIONS, ...options.migrations]);
    const eventStore = options.wrapEventStore
      ? await options.wrapEventStore(connected, pool)
      : connected;
    const dataSource = new DataSource({
      type: 'postgres',
      url: database.url,
      poolSize: sizes.readModels,
      extra: { Client: CountedClient, options: READ_MODEL_SESSION_OPTIONS },
      poolErrorHandler: onError,
      entities: options.projections.map((projection) => projection.entity),
    });
    await dataSource.initialize();
    closers.push(() => dataSource.destroy());
    const runners = options.projections.map(
      (projection) => new ProjectionRunner(eventStore, dataSource, projection, PROJECTION_REPORTS),
    );
    closers.push(async () => {
      // What was committed before the shutdown reaches the read models before they close.
      await Promise.all(runners.map((runner) => runner.drainAndStop()));
    });
    return { database, eventStore, dataSource, pool, runners, close };
  } catch (error) {
    await close();
    throw error;
  }
}
