import pg from 'pg';

const DUPLICATE_DATABASE = '42P04';
/** Two concurrent CREATE DATABASE can also collide on pg_database's unique index. */
const UNIQUE_VIOLATION = '23505';

/** The same connection URL pointing at database `name` (credentials and parameters kept). */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

/** Creates database `name` on the server unless it exists; safe when several processes race. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, async (client) => {
    if (await databaseExists(client, name)) return;
    try {
      await client.query(`create database ${client.escapeIdentifier(name)}`);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const raced = code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION;
      if (!raced || !(await databaseExists(client, name))) throw error;
    }
  });
}

/** Drops database `name` if it exists, disconnecting its sessions. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await withClient(serverUrl, async (client) => {
    await client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`);
  });
}

async function databaseExists(client: pg.Client, name: string): Promise<boolean> {
  const result = await client.query('select 1 from pg_database where datname = $1', [name]);
  return (result.rowCount ?? 0) > 0;
}

/** One connection for one piece of work, closed afterwards whatever happens. */
export async function withClient<T>(
  url: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // An 'error' event without a listener would crash the process; the failing query reports it.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Where a database URL points, without its credentials: `berth on 127.0.0.1:5432`. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const name = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres';
    return `${name} on ${parsed.host || 'the local socket'}`;
  } catch {
    return 'DATABASE_URL';
  }
}
