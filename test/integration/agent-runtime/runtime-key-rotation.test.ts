import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime } from '../../support/runtime-process.js';
import { eventLogDigest, queryRows } from '../../support/database-query.js';

const execute = promisify(execFile);
const BERTH = resolve('bin/berth.js');
const OLD_KEY = randomBytes(32).toString('hex');
const NEW_KEY = randomBytes(32).toString('base64');

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `berth keys ...` with this environment only (and PATH), as an operator would run it. */
async function berthKeys(args: string[], env: Record<string, string>): Promise<Outcome> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [BERTH, 'keys', ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('berth keys rotate: the master key changes, the log does not', () => {
  let database: TestDatabase;
  const secret = `rotated-${randomBytes(6).toString('hex')}`;
  let threadId = '';

  beforeAll(async () => {
    database = await createTestDatabase('runtime_key_rotation');
    const runtime = await startRuntime({
      databaseUrl: database.url,
      env: { BERTH_MASTER_KEY: OLD_KEY },
    });
    try {
      const client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
      const thread = await client.threads.create({ metadata: { secret } });
      threadId = thread.thread_id;
      await client.runs.wait(threadId, 'agent', {
        input: { messages: [{ role: 'user', content: `Weather in Quito? ${secret}` }] },
      });
      await client.store.putItem(['rotation'], 'item', { text: secret });
      await client.assistants.create({ graphId: 'agent', metadata: { secret } });
    } finally {
      await runtime.stop();
    }
  }, 90_000);

  afterAll(async () => {
    await database.drop();
  });

  it('takes the new key from the environment or a file, never as an argument', async () => {
    const asArgument = await berthKeys(['rotate', NEW_KEY], {
      DATABASE_URL: database.url,
      BERTH_MASTER_KEY: OLD_KEY,
    });
    expect(asArgument.code).toBe(2);
    expect(asArgument.stderr).toContain('unexpected argument');
    const without = await berthKeys(['rotate'], {
      DATABASE_URL: database.url,
      BERTH_MASTER_KEY: OLD_KEY,
    });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('BERTH_NEW_MASTER_KEY or --new-key-file');
  });

  it('re-wraps every data key; a runtime with the new key reads old threads, one with the old refuses', async () => {
    const keys = await queryRows(database.url, 'select 1 from encryption_keys');
    expect(keys.length).toBeGreaterThanOrEqual(3);
    const logBefore = await eventLogDigest(database.url);

    const rotated = await berthKeys(['rotate'], {
      DATABASE_URL: database.url,
      BERTH_MASTER_KEY: OLD_KEY,
      BERTH_NEW_MASTER_KEY: NEW_KEY,
    });
    console.log(`berth keys rotate: ${rotated.stdout.trim()}`);
    expect(rotated).toMatchObject({ code: 0, stderr: '' });
    expect(rotated.stdout).toMatch(
      new RegExp(
        `^rewrapped ${keys.length} data keys from master key \\w{16} \\(BERTH_MASTER_KEY\\) to \\w{16};`,
      ),
    );
    expect(rotated.stdout).not.toContain(NEW_KEY);
    expect(await eventLogDigest(database.url)).toBe(logBefore);

    const withNewKey = await startRuntime({
      databaseUrl: database.url,
      env: { BERTH_MASTER_KEY: NEW_KEY },
    });
    try {
      const client = new Client({ apiUrl: withNewKey.url, apiKey: withNewKey.apiKey });
      expect((await client.threads.get(threadId)).metadata).toMatchObject({ secret });
      const state = await client.threads.getState(threadId);
      expect(JSON.stringify(state.values)).toContain(secret);
      expect((await client.store.getItem(['rotation'], 'item'))?.value).toEqual({ text: secret });
      expect(await client.assistants.search({ metadata: { secret } })).toHaveLength(1);
    } finally {
      await withNewKey.stop();
    }

    await expect(
      startRuntime({ databaseUrl: database.url, env: { BERTH_MASTER_KEY: OLD_KEY } }),
    ).rejects.toThrow(/data keys wrapped by master key \w{16}, not by the configured one/);
  }, 120_000);

  it('rotates again to a key file; the runtime reads that file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'berth-rotation-'));
    const keyFile = join(dir, 'master-key');
    await writeFile(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const rotated = await berthKeys(['rotate', '--new-key-file', keyFile], {
      DATABASE_URL: database.url,
      BERTH_MASTER_KEY: NEW_KEY,
    });
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/^rewrapped \d+ data keys/);

    const runtime = await startRuntime({
      databaseUrl: database.url,
      env: { BERTH_MASTER_KEY_FILE: keyFile },
    });
    try {
      const client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
      expect((await client.threads.get(threadId)).metadata).toMatchObject({ secret });
    } finally {
      await runtime.stop();
    }
  }, 120_000);
});
