import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

const PASSWORD_FILE = 'postgres.password';
const SUPERUSER = 'postgres';

/** The embedded superuser's password as kept in the data directory, if it is there. */
export async function keptClusterPassword(dataDir: string): Promise<string | undefined> {
  const kept = await readFile(path.join(dataDir, PASSWORD_FILE), 'utf8').catch(() => '');
  return kept.trim() || undefined;
}

/** Whether a server answers at `url` (a connection and `select 1`). */
export async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The embedded superuser's password, made once and kept in the data directory (mode 0600). */
export async function clusterPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  const kept = await keptClusterPassword(dataDir);
  if (kept) return kept;
  await writeFile(file, `${randomBytes(24).toString('base64url')}\n`, {
    mode: 0o600,
    flag: 'wx',
  }).catch((error: unknown) => {
    // Another process made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}

/**
 * A cluster made with trust authentication (by an earlier Berth) gets the superuser's password
 * and password authentication for every connection, then reloads its configuration.
 */
export async function requirePasswords(
  clusterDir: string,
  port: number,
  password: string,
): Promise<void> {
  const hbaFile = path.join(clusterDir, 'pg_hba.conf');
  const hba = await readFile(hbaFile, 'utf8');
  const switched = withoutTrust(hba);
  if (switched === hba) return;
  await withSuperuser(port, password, async (client) => {
    await client.query(`set password_encryption = 'scram-sha-256'`);
    await client.query(`alter role ${SUPERUSER} with password ${client.escapeLiteral(password)}`);
    await writeFile(hbaFile, switched);
    await client.query('select pg_reload_conf()');
  });
}

/**
 * Only the superuser may connect to the maintenance databases: a deployment's role reaches its
 * own database and no other.
 */
export async function closeMaintenanceDatabases(port: number, password: string): Promise<void> {
  await withSuperuser(port, password, async (client) => {
    await client.query('revoke connect, temporary on database postgres, template1 from public');
  });
}

/** pg_hba.conf with every `trust` method replaced by scram-sha-256. */
export function withoutTrust(hba: string): string {
  return hba
    .split('\n')
    .map((line) => {
      if (line.trimStart().startsWith('#')) return line;
      return line.replace(/(\s)trust(\s*(#.*)?)$/, '$1scram-sha-256$2');
    })
    .join('\n');
}

async function withSuperuser(
  port: number,
  password: string,
  work: (client: pg.Client) => Promise<void>,
): Promise<void> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: SUPERUSER,
    password,
    database: 'postgres',
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
