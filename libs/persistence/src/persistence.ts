import pg from 'pg';
import { DataSource, type ObjectLiteral } from 'typeorm';
import { CountedClient, provideDatabase, type ProvidedDatabase } from '#libs/database';
import {
  connectEventStore,
  migrate,
  PROJECTION_MIGRATIONS,
  ProjectionRunner,
  type EventStore,
  type Migration,
  type Projection,
} from '#libs/event-store';

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
  readonly onError: (error: unknown) => void;
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

/** The database, the event log and the read models of one app, opened and migrated in order. */
export async function openPersistence(options: PersistenceOptions): Promise<Persistence> {
  const database = await provideDatabase({
    databaseUrl: options.databaseUrl,
    dataDir: options.dataDir,
    databaseName: options.databaseName,
  });
  const closers: (() => Promise<void>)[] = [() => database.stop()];
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(options.onError);
  };
  try {
    const eventStore = await connectEventStore({
      eventStoreUrl: options.eventStoreUrl,
      databaseUrl: database.url,
      onError: options.onError,
    });
    closers.push(() => eventStore.close());
    const pool = new pg.Pool({ Client: CountedClient, connectionString: database.url, max: 10 });
    pool.on('error', options.onError);
    closers.push(() => pool.end());
    await migrate(pool, 'read_model_migrations', [...PROJECTION_MIGRATIONS, ...options.migrations]);
    const dataSource = new DataSource({
      type: 'postgres',
      url: database.url,
      extra: { Client: CountedClient, options: READ_MODEL_SESSION_OPTIONS },
      entities: options.projections.map((projection) => projection.entity),
    });
    await dataSource.initialize();
    closers.push(() => dataSource.destroy());
    const runners = options.projections.map(
      (projection) =>
        new ProjectionRunner(eventStore, dataSource, projection, { onError: options.onError }),
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
