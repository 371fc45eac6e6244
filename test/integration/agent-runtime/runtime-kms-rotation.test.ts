import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { eventLogDigest, queryRows } from '../../support/database-query.js';

const execute = promisify(execFile);
const BERTH = resolve('bin/berth.js');
const APP = resolve('test/fixtures/rotating-kms-app/langgraph.json');
const TENANT = { tenant: 'acme' };

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface KmsState {
  readonly encryptVersion: number;
  readonly decryptVersions: number[];
  readonly failEncryptAfter?: number;
}

interface KmsCall {
  readonly op: 'encrypt' | 'decrypt';
  readonly version: number;
  readonly model: string | null;
  readonly field: string | null;
  readonly metadata: Record<string, unknown>;
}

interface StoredKey {
  readonly scope: string;
  readonly master_key_id: string;
  readonly wrapped_key: string;
}

/** The fake KMS's key version a stored key is wrapped with: the first byte of its blob. */
function versionOf(key: StoredKey): number {
  const text = key.wrapped_key.slice('custom.v1.'.length);
  const stored = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { blob: string };
  return Buffer.from(stored.blob, 'base64')[0] ?? 0;
}

describe('berth keys rotate through the encryption handlers: a KMS key version retired', () => {
  let database: TestDatabase;
  let dir = '';
  let runtime: RuntimeProcess | undefined;
  const secret = `kms-rotated-${randomBytes(6).toString('hex')}`;
  let threadId = '';

  const kmsState = (state: KmsState): Promise<void> =>
    writeFile(join(dir, 'kms-state.json'), JSON.stringify(state));
  const kmsCalls = async (): Promise<KmsCall[]> =>
    (await readFile(join(dir, 'kms-calls.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as KmsCall);
  const kmsEnv = (): Record<string, string> => ({
    KMS_STATE: join(dir, 'kms-state.json'),
    KMS_LOG: join(dir, 'kms-calls.jsonl'),
  });
  const storedKeys = (): Promise<StoredKey[]> =>
    queryRows<StoredKey>(
      database.url,
      'select scope, master_key_id, wrapped_key from encryption_keys order by scope',
    );

  /** `berth keys rotate ...` as an operator runs it: this environment only (and PATH). */
  async function rotate(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
    try {
      const { stdout, stderr } = await execute(
        process.execPath,
        [BERTH, 'keys', 'rotate', '--graph-config', APP, ...args],
        {
          env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: database.url, ...kmsEnv(), ...env },
        },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  const start = async (): Promise<Client> => {
    runtime = await startRuntime({ databaseUrl: database.url, graphConfig: APP, env: kmsEnv() });
    return new Client({
      apiUrl: runtime.url,
      apiKey: runtime.apiKey,
      defaultHeaders: { 'X-Encryption-Context': JSON.stringify(TENANT) },
    });
  };
  const stop = async (): Promise<void> => {
    await runtime?.stop();
    runtime = undefined;
  };

  beforeAll(async () => {
    database = await createTestDatabase('runtime_kms_rotation');
    dir = await mkdtemp(join(tmpdir(), 'berth-kms-rotation-'));
    await kmsState({ encryptVersion: 1, decryptVersions: [1] });
    const client = await start();
    try {
      const thread = await client.threads.create({ metadata: { secret } });
      threadId = thread.thread_id;
      for (let run = 0; run < 2; run += 1) {
        await client.runs.wait(threadId, 'notes', { input: { notes: [`${secret} note ${run}`] } });
      }
      await client.store.putItem(['rotation'], 'item', { text: secret });
      await client.assistants.create({ graphId: 'notes', metadata: { secret } });
    } finally {
      await stop();
    }
  }, 120_000);

  afterAll(async () => {
    await stop();
    await database.drop();
  });

  it('refuses a new master key beside the handlers, and a batch size out of range', async () => {
    const withKey = await rotate([], { BERTH_NEW_MASTER_KEY: randomBytes(32).toString('base64') });
    expect(withKey.code).toBe(2);
    expect(withKey.stderr).toContain('names encryption handlers');
    const badBatch = await rotate(['--batch-size', '0']);
    expect(badBatch.code).toBe(2);
    expect(badBatch.stderr).toContain('--batch-size must be a whole number from 1 to 10000');
  }, 60_000);

  it('resumes a rotation stopped by a KMS failure, then every key is wrapped by version 2', async () => {
    const before = await storedKeys();
    console.log(`keys before: ${JSON.stringify(before.map((k) => [k.scope, versionOf(k)]))}`);
    expect(before.length).toBeGreaterThanOrEqual(4);
    expect(before.map(versionOf)).toEqual(before.map(() => 1));
    expect(new Set(before.map((k) => k.master_key_id))).toEqual(new Set(['custom-encryption']));
    // The control: before the rotation, a runtime whose KMS has retired version 1 cannot start.
    await kmsState({ encryptVersion: 2, decryptVersions: [2] });
    await expect(start()).rejects.toThrow(/fake KMS key version 1 is disabled/);
    const logBefore = await eventLogDigest(database.url);
    const callsBefore = (await kmsCalls()).length;

    // The KMS's new version encrypts, the old one still decrypts; it fails after 2 encrypts.
    await kmsState({ encryptVersion: 2, decryptVersions: [1, 2], failEncryptAfter: 2 });
    const stopped = await rotate(['--batch-size', '2']);
    console.log(`stopped rotation: ${stopped.stdout.trim()} | ${stopped.stderr.trim()}`);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toMatch(
      new RegExp(`^rotation [0-9a-f-]{36} started at \\S+: ${before.length} data keys wrapped`),
    );
    expect(stopped.stdout).toContain(`rewrapped 2/${before.length}\n`);
    expect(stopped.stderr).toMatch(/failed on data key [0-9a-f-]{36} .*fake KMS unavailable/);
    expect(stopped.stderr).toContain('run the command again to resume');
    expect((await storedKeys()).map(versionOf).sort()).toEqual(
      [...before.map(() => 1).slice(2), 2, 2].sort(),
    );

    await kmsState({ encryptVersion: 2, decryptVersions: [1, 2] });
    const resumed = await rotate(['--batch-size', '2']);
    console.log(`resumed rotation: ${resumed.stdout.trim()}`);
    expect(resumed).toMatchObject({ code: 0, stderr: '' });
    expect(resumed.stdout).toMatch(
      new RegExp(
        `^resuming rotation [0-9a-f-]{36} .*\\(2 data keys wrapped again before\\): ${before.length - 2} left`,
      ),
    );
    expect(resumed.stdout).toContain(
      `rewrapped ${before.length - 2} data keys through the encryption handlers`,
    );
    expect(resumed.stdout).toContain(`(${before.length} in all); the event log is unchanged`);

    // (a) Every stored key now carries version 2; the log is as it was.
    const after = await storedKeys();
    expect(after.map((k) => k.scope)).toEqual(before.map((k) => k.scope));
    expect(after.map(versionOf)).toEqual(after.map(() => 2));
    expect(await eventLogDigest(database.url)).toBe(logBefore);
    const [rotation] = await queryRows<{ rewrapped: number; finished: boolean }>(
      database.url,
      'select rewrapped, finished_at is not null as finished from encryption_key_rotations',
    );
    expect(rotation).toEqual({ rewrapped: before.length, finished: true });

    // Each key was opened and wrapped again with the context it was made with.
    const rotationCalls = (await kmsCalls()).slice(callsBefore);
    const threadCalls = rotationCalls.filter((call) => call.model === 'thread');
    expect(threadCalls.map((c) => [c.op, c.version, c.field, c.metadata])).toEqual(
      expect.arrayContaining([
        ['decrypt', 1, 'data_key', TENANT],
        ['encrypt', 2, 'data_key', TENANT],
      ]),
    );
    expect(rotationCalls.filter((c) => c.op === 'encrypt' && c.version === 2)).toHaveLength(
      before.length,
    );
  }, 120_000);

  it('with version 1 disabled, a new runtime reads the thread, the store and the assistant', async () => {
    await kmsState({ encryptVersion: 2, decryptVersions: [2] });
    const callsBefore = (await kmsCalls()).length;
    const client = await start();
    expect((await client.threads.get(threadId)).metadata).toMatchObject({ secret });
    const state = await client.threads.getState(threadId);
    expect((state.values as { notes: string[] }).notes).toEqual([
      `${secret} note 0`,
      `${secret} note 1`,
    ]);
    expect((await client.store.getItem(['rotation'], 'item'))?.value).toEqual({ text: secret });
    expect(await client.assistants.search({ metadata: { secret } })).toHaveLength(1);
    const values = (await client.runs.wait(threadId, 'notes', {
      input: { notes: ['after rotation'] },
    })) as { count: number };
    expect(values.count).toBe(3);
    await stop();
    const opened = (await kmsCalls()).slice(callsBefore).filter((c) => c.op === 'decrypt');
    // The thread's key was opened from the KMS (its state is read from the log), by version 2.
    expect(opened).toContainEqual({
      op: 'decrypt',
      version: 2,
      model: 'thread',
      field: 'data_key',
      metadata: TENANT,
    });
    expect(opened.map((c) => c.version)).toEqual(opened.map(() => 2));
  }, 120_000);

  it('the same handlers with version 2 disabled open nothing: the keys really moved', async () => {
    await kmsState({ encryptVersion: 2, decryptVersions: [1] });
    const again = await rotate([]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('fake KMS key version 2 is disabled');
    await kmsState({ encryptVersion: 2, decryptVersions: [2] });
  }, 60_000);
});
