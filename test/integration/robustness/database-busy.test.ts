import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DATABASE_BUSY } from '#libs/http';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { testServerUrl } from '../../support/test-server.js';
import { within } from '../../support/within.js';

jest.setTimeout(180_000);

interface Answer {
  readonly status: number;
  readonly body: { detail?: unknown } | null;
  readonly retryAfter: string | null;
}

async function serverQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testServerUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A runtime that logs in as a role of its own, as a deployment's runtime does, whose connection
 * limit is then reached: its requests are answered 503 with Retry-After and a JSON detail that
 * names no role, not 500.
 */
describe('a runtime at its role’s connection limit', () => {
  const role = `berth_test_busy_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  let database: TestDatabase;
  let runtime: RuntimeProcess;

  beforeAll(async () => {
    database = await createTestDatabase('busy');
    const name = new URL(database.url).pathname.slice(1);
    await serverQuery(`create role ${role} login password '${password}' connection limit 30`);
    await serverQuery(`alter database ${name} owner to ${role}`);
    const url = new URL(database.url);
    url.username = role;
    url.password = password;
    runtime = await startRuntime({ databaseUrl: url.toString() });
  }, 120_000);

  afterAll(async () => {
    await runtime.stop();
    await database.drop();
    await serverQuery(`drop role if exists ${role}`);
  });

  async function searchThreads(): Promise<Answer> {
    const response = await fetch(`${runtime.url}/threads/search`, {
      method: 'POST',
      headers: { 'x-api-key': runtime.apiKey, 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? (JSON.parse(text) as { detail?: unknown }) : null,
      retryAfter: response.headers.get('retry-after'),
    };
  }

  it('answers 503 with Retry-After while the role has no connection left, and serves again after', async () => {
    expect((await searchThreads()).status).toBe(200);

    // No connection more for the role, and the ones it holds are gone: every new one is refused
    // with 53300 (too many connections for role).
    await serverQuery(`alter role ${role} connection limit 0`);
    await serverQuery(
      `select pg_terminate_backend(pid) from pg_stat_activity where usename = '${role}'`,
    );

    // The pool may first hand out a connection it has not yet seen closed (a 503 "database
    // unavailable"); the requests that follow need a new one, and are told the database is full.
    const answers: Answer[] = [];
    await within(
      (async () => {
        for (;;) {
          const answer = await searchThreads();
          answers.push(answer);
          if (answer.body?.detail === DATABASE_BUSY) return;
        }
      })(),
      60_000,
      'A request answered "too many connections"',
    );
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      expect(typeof answer.body?.detail).toBe('string');
      expect(String(answer.body?.detail)).not.toContain(role);
    }

    await serverQuery(`alter role ${role} connection limit 30`);
    await within(
      (async () => {
        while ((await searchThreads()).status !== 200);
      })(),
      60_000,
      'The runtime served again once the role had room',
    );
  });
});
