export {
  DEFAULT_EMBEDDED_POSTGRES_PORT,
  EmbeddedPostgresError,
  runningEmbeddedPostgres,
  startEmbeddedPostgres,
  type EmbeddedPostgresOptions,
  type EmbeddedPostgresServer,
} from './embedded-postgres.server.js';
export {
  describeDatabaseUrl,
  dropDatabase,
  ensureDatabase,
  withClient,
  withDatabase,
} from './database-url.js';
export {
  DEFAULT_DATABASE_NAME,
  provideDatabase,
  type DatabaseOptions,
  type ProvidedDatabase,
} from './database.provider.js';
export { acceptsAnyPassword } from './trust-probe.js';
export { withoutTrust } from './embedded-postgres.access.js';
export * from './counted-client.js';
export {
  DATABASE_RETRY_AFTER_SECONDS,
  DatabaseAvailability,
  databaseAvailability,
  DatabaseUnavailableError,
  isDatabaseUnavailable,
  type DatabaseAvailabilityReports,
  type DatabaseProbe,
  type DatabaseState,
} from './database-availability.js';
export { DataDirInUseError, isLiveNodeProcess } from './data-dir-lock.js';
