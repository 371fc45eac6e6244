import pg from 'pg';
import { DataSource, type ObjectLiteral } from 'typeorm';
import { provideDatabase, type ProvidedDatabase } from '#libs/database';
import {
  connectEventStore,
  migrate,
  PROJECTION_MIGRATIONS,
  ProjectionRunner,
  type EventStore,
  type Projection,
} from '#libs/event-store';
import type { ControlPlaneConfig } from './control-plane.config.js';
import { STREAM_CATALOG_MIGRATIONS } from './stream-catalog/stream-catalog.migrations.js';
import { streamCatalogProjection } from './stream-catalog/stream-catalog.projection.js';

export type AnyProjection = Projection<ObjectLiteral>;

export const PROJECTIONS: readonly AnyProjection[] = [streamCatalogProjection];

const READ_MODEL_MIGRATIONS = [...PROJECTION_MIGRATIONS, ...STREAM_CATALOG_MIGRATIONS];

export interface PlatformResources {
  readonly database: ProvidedDatabase;
  readonly eventStore: EventStore;
  readonly dataSource: DataSource;
  readonly runners: readonly ProjectionRunner<ObjectLiteral>[];
  close(): Promise<void>;
}

export interface OpenOptions {
  readonly onError: (error: unknown) => void;
}

/** The database, the event log and the read models, opened and migrated in that order. */
export async function openPlatformResources(
  config: ControlPlaneConfig,
  options: OpenOptions,
): Promise<PlatformResources> {
  const database = await provideDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
  });
  const closers: (() => Promise<void>)[] = [() => database.stop()];
  const close = async (): Promise<void> => {
    for (const closer of closers.reverse()) await closer().catch(options.onError);
  };
  try {
    const eventStore = await connectEventStore({
      eventStoreUrl: config.eventStoreUrl,
      databaseUrl: database.url,
      onError: options.onError,
    });
    closers.push(() => eventStore.close());
    await migrateReadModels(database.url);
    const dataSource = new DataSource({
      type: 'postgres',
      url: database.url,
      entities: PROJECTIONS.map((projection) => projection.entity),
    });
    await dataSource.initialize();
    closers.push(() => dataSource.destroy());
    const runners = PROJECTIONS.map(
      (projection) =>
        new ProjectionRunner(eventStore, dataSource, projection, { onError: options.onError }),
    );
    closers.push(async () => {
      await Promise.all(runners.map((runner) => runner.stop()));
    });
    return { database, eventStore, dataSource, runners, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function migrateReadModels(url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(pool, 'read_model_migrations', READ_MODEL_MIGRATIONS);
  } finally {
    await pool.end();
  }
}
