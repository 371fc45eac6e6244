import { ensureDatabase, startEmbeddedPostgres, withDatabase } from '#libs/database';

export interface DatabaseServer {
  /** A URL for a database of this name on the server, created if need be. */
  database(name: string): Promise<string>;
  /** The given DATABASE_URL as it is, when there is one. */
  readonly configuredUrl: string | undefined;
  readonly description: string;
  stop(): Promise<void>;
}

/** DATABASE_URL's server, or an embedded PostgreSQL in the data directory. */
export async function openDatabaseServer(
  databaseUrl: string | undefined,
  dataDir: string,
): Promise<DatabaseServer> {
  if (databaseUrl) {
    return {
      configuredUrl: databaseUrl,
      description: 'the PostgreSQL at DATABASE_URL',
      database: async (name) => {
        await ensureDatabase(databaseUrl, name);
        return withDatabase(databaseUrl, name);
      },
      stop: () => Promise.resolve(),
    };
  }
  const server = await startEmbeddedPostgres({ dataDir });
  return {
    configuredUrl: undefined,
    description: `an embedded PostgreSQL in ${dataDir} (port ${server.port})`,
    database: async (name) => {
      await ensureDatabase(server.url, name);
      return withDatabase(server.url, name);
    },
    stop: () => server.stop(),
  };
}
