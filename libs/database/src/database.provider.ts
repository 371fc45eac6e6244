import { ensureDatabase, withDatabase } from './database-url.js';
import { startEmbeddedPostgres } from './embedded-postgres.server.js';

export const DEFAULT_DATABASE_NAME = 'berth';

export interface DatabaseOptions {
  /** A configured server (DATABASE_URL); used as is. Without it an embedded server is started. */
  readonly databaseUrl?: string;
  /** Berth's data directory, home of the embedded cluster (`<dataDir>/postgres`). */
  readonly dataDir: string;
  /** Database created and used on the embedded server; `berth` by default. */
  readonly databaseName?: string;
  /** Hears that the embedded server died, is back, or could not be restarted (stderr without it). */
  readonly report?: (level: 'info' | 'error', message: string) => void;
}

export interface ProvidedDatabase {
  readonly url: string;
  /** Whether the server is the embedded one, started by this process. */
  readonly embedded: boolean;
  /** Stops the embedded server; does nothing for a configured one. */
  stop(): Promise<void>;
}

/** The database Berth works in: the configured one, or one on an embedded server. */
export async function provideDatabase(options: DatabaseOptions): Promise<ProvidedDatabase> {
  const configured = options.databaseUrl?.trim();
  if (configured) {
    return { url: configured, embedded: false, stop: () => Promise.resolve() };
  }

  const server = await startEmbeddedPostgres({ dataDir: options.dataDir, report: options.report });
  const name = options.databaseName ?? DEFAULT_DATABASE_NAME;
  try {
    await ensureDatabase(server.url, name);
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }
  return { url: withDatabase(server.url, name), embedded: true, stop: () => server.stop() };
}
