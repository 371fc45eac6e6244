import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { allRows, dumpTables, occurrences } from '../../support/erasure-scan.js';
import { queryRows } from '../../support/database-query.js';

const APP = resolve('test/fixtures/encryption-app/langgraph.json');
const RUNS = 4;

interface KmsCall {
  readonly op: 'encrypt' | 'decrypt';
  readonly model: string | null;
  readonly field: string | null;
  readonly metadata: Record<string, unknown>;
}

describe('custom encryption (encryption.path): a KMS wraps data keys, once per key', () => {
  let database: TestDatabase;
  let kmsLog = '';
  let runtime: RuntimeProcess | undefined;
  const secret = `kms-secret-${randomBytes(6).toString('hex')}`;
  let threadId = '';

  const kmsCalls = async (): Promise<KmsCall[]> =>
    (await readFile(kmsLog, 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as KmsCall);

  const start = async (): Promise<Client> => {
    runtime = await startRuntime({
      databaseUrl: database.url,
      graphConfig: APP,
      env: { KMS_LOG: kmsLog },
    });
    return new Client({
      apiUrl: runtime.url,
      apiKey: runtime.apiKey,
      defaultHeaders: { 'X-Encryption-Context': JSON.stringify({ tenant: 'acme' }) },
    });
  };

  beforeAll(async () => {
    database = await createTestDatabase('runtime_custom_encryption');
    kmsLog = join(await mkdtemp(join(tmpdir(), 'berth-kms-')), 'calls.jsonl');
  });

  afterAll(async () => {
    await runtime?.stop();
    await database.drop();
  });

  it(`calls the KMS once for a thread's key over ${RUNS} runs, with the request's context`, async () => {
    const client = await start();
    const thread = await client.threads.create({ metadata: { secret } });
    threadId = thread.thread_id;
    for (let run = 0; run < RUNS; run += 1) {
      const values = (await client.runs.wait(threadId, 'notes', {
        input: { notes: [`${secret} note ${run}`] },
      })) as { count: number };
      expect(values.count).toBe(run + 1);
    }
    const calls = await kmsCalls();
    console.log(`KMS calls after ${RUNS} runs on one thread: ${JSON.stringify(calls)}`);
    // One key per data key made: the thread's (in the request's context), and the default
    // assistant's, made at start outside any request.
    expect(calls).toEqual([
      { op: 'encrypt', model: 'assistant', field: 'data_key', metadata: {} },
      { op: 'encrypt', model: 'thread', field: 'data_key', metadata: { tenant: 'acme' } },
    ]);
    await runtime?.stop();
    runtime = undefined;
  }, 120_000);

  it('keeps no clear text in the log; the key store holds KMS-wrapped keys only', async () => {
    const dump = await dumpTables(database.url);
    const found = occurrences(
      [...(dump.get('es_events') ?? []), ...(dump.get('encryption_keys') ?? [])],
      secret,
    );
    console.log(
      `custom encryption: planted ${RUNS + 1} times; found in the log and key store: ${found}, ` +
        `in the read models (kept in clear, see operations.md): ${occurrences(allRows(dump), secret)}`,
    );
    expect(found).toBe(0);
    const keys = await queryRows<{ master_key_id: string; wrapped_key: string }>(
      database.url,
      'select master_key_id, wrapped_key from encryption_keys',
    );
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key).toEqual({
        master_key_id: 'custom-encryption',
        wrapped_key: expect.stringMatching(/^custom\.v1\./),
      });
    }
  });

  it('a new process opens the key with one KMS call, whatever it reads', async () => {
    const before = (await kmsCalls()).length;
    const client = await start();
    expect((await client.threads.get(threadId)).metadata).toMatchObject({ secret });
    const state = await client.threads.getState(threadId);
    expect((state.values as { notes: string[] }).notes).toEqual(
      Array.from({ length: RUNS }, (_, run) => `${secret} note ${run}`),
    );
    expect(await client.threads.getHistory(threadId)).not.toHaveLength(0);
    const [run] = await client.runs.list(threadId);
    expect(run?.thread_id).toBe(threadId);
    const values = (await client.runs.wait(threadId, 'notes', {
      input: { notes: ['one more'] },
    })) as {
      count: number;
    };
    expect(values.count).toBe(RUNS + 1);
    const after = (await kmsCalls()).slice(before);
    console.log(`KMS calls of a new process reading and running: ${JSON.stringify(after)}`);
    expect(after).toEqual([
      { op: 'decrypt', model: 'assistant', field: 'data_key', metadata: {} },
      { op: 'decrypt', model: 'thread', field: 'data_key', metadata: { tenant: 'acme' } },
    ]);
  }, 120_000);
});
