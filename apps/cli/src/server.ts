import {
  DataDirInUseError,
  ensureDatabase,
  runningEmbeddedPostgres,
  startEmbeddedPostgres,
  withClient,
  withDatabase,
} from '#libs/database';

export interface DatabaseServer {
  /** A URL for a database of this name on the server, created if need be. */
  database(name: string): Promise<string>;
  /**
   * As `database`, and sealed: PUBLIC may not connect to it (nor make temporary tables), as the
   * platform's own database and every deployment's are, so a deployment's role cannot reach it.
   */
  sealedDatabase(name: string): Promise<string>;
  /** The given DATABASE_URL as it is, when there is one. */
  readonly configuredUrl: string | undefined;
  readonly description: string;
  stop(): Promise<void>;
}

/**
 * DATABASE_URL's server, or an embedded PostgreSQL in the data directory. With `shareRunning`, a
 * data directory another Berth runs on (`npm start` beside `berth dev`) lends its server: this
 * process neither starts nor stops it.
 */
export async function openDatabaseServer(
  databaseUrl: string | undefined,
  dataDir: string,
  options: { readonly shareRunning?: boolean } = {},
): Promise<DatabaseServer> {
  if (databaseUrl) {
    return {
      configuredUrl: databaseUrl,
      description: 'the PostgreSQL at DATABASE_URL',
      ...databasesOn(databaseUrl),
      stop: () => Promise.resolve(),
    };
  }
  const server = await startEmbeddedPostgres({ dataDir }).catch(async (error: unknown) => {
    if (!(error instanceof DataDirInUseError) || !options.shareRunning) throw error;
    return { ...((await runningEmbeddedPostgres(dataDir)) ?? throwError(error)), shared: true };
  });
  if ('shared' in server) {
    return {
      configuredUrl: undefined,
      description:
        `the embedded PostgreSQL of the Berth running in ${dataDir} (port ${server.port}; ` +
        'it stops with that Berth)',
      ...databasesOn(server.url),
      stop: () => Promise.resolve(),
    };
  }
  return {
    configuredUrl: undefined,
    description: `an embedded PostgreSQL in ${dataDir} (port ${server.port})`,
    ...databasesOn(server.url),
    stop: () => server.stop(),
  };
}

function databasesOn(serverUrl: string): Pick<DatabaseServer, 'database' | 'sealedDatabase'> {
  const database = async (name: string): Promise<string> => {
    await ensureDatabase(serverUrl, name);
    return withDatabase(serverUrl, name);
  };
  return {
    database,
    sealedDatabase: async (name) => {
      const url = await database(name);
      await withClient(serverUrl, async (client) => {
        await client.query(
          `revoke connect, temporary on database ${client.escapeIdentifier(name)} from public`,
        );
      });
      return url;
    },
  };
}

function throwError(error: unknown): never {
  throw error;
}
