import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { dropDatabase, ensureDatabase, withClient, withDatabase } from '#libs/database';
import { testServerUrl } from './test-server.js';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * How long a drop waits for the test's own sessions to close. `pool.end()` resolves before its
 * clients' sockets close, and a session the forced drop ends reaches an idle client still in the
 * pool as an 'error' event that nobody listens to: the test file fails on an unhandled error.
 */
const SESSIONS_CLOSE_WITHIN_MS = 1_000;

/** A database of its own for one test file, on the test server, dropped afterwards. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const server = testServerUrl();
  const name = `berth_test_${label}_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(server, name);
  return {
    url: withDatabase(server, name),
    drop: async () => {
      await untilSessionsEnd(server, name);
      await dropDatabase(server, name);
    },
  };
}

/** Waits (bounded) until no session is connected to database `name`; the drop forces the rest. */
async function untilSessionsEnd(server: string, name: string): Promise<void> {
  const deadline = Date.now() + SESSIONS_CLOSE_WITHIN_MS;
  await withClient(server, async (client) => {
    const sessions = async (): Promise<number> => {
      const { rows } = await client.query<{ count: number }>(
        'select count(*)::int as count from pg_stat_activity where datname = $1',
        [name],
      );
      return rows[0]?.count ?? 0;
    };
    while ((await sessions()) > 0 && Date.now() < deadline) await delay(20);
  });
}
