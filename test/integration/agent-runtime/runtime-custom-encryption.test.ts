import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import {
  allRows,
  dumpEvents,
  dumpTables,
  occurrences,
  openedWithTodaysKeys,
} from '../../support/erasure-scan.js';
import { queryRows } from '../../support/database-query.js';
import { within } from '../../support/within.js';
import {
  CustomKeyWrapper,
  encryptionHandlersOf,
} from '../../../apps/agent-runtime/src/encryption/custom-encryption.js';
import { encryption } from '../../fixtures/encryption-app/src/encryption.js';

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
  let client: Client | undefined;

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
    client = new Client({
      apiUrl: runtime.url,
      apiKey: runtime.apiKey,
      defaultHeaders: { 'X-Encryption-Context': JSON.stringify({ tenant: 'acme' }) },
    });
    return client;
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

  it('erases a deleted thread: no table, and no log dumped before opened through the KMS, holds it', async () => {
    if (!client) throw new Error('The previous test left no runtime');
    const handlers = encryptionHandlersOf(encryption);
    if (typeof handlers === 'string') throw new Error(handlers);
    // The thief's view: the fake KMS's handlers, called in this process (they log nothing here).
    const kms = new CustomKeyWrapper(handlers);
    const before = await dumpTables(database.url);
    const dumpedEvents = await dumpEvents(database.url);
    const openedBefore = await openedWithTodaysKeys(database.url, kms, dumpedEvents);
    const plantedBefore = occurrences(openedBefore, secret);
    // The thread's metadata, its runs' input and its state: read through the KMS, never in clear.
    expect(plantedBefore).toBeGreaterThanOrEqual(RUNS + 1);
    expect(
      occurrences(
        dumpedEvents.map((event) => JSON.stringify(event.data)),
        secret,
      ),
    ).toBe(0);
    const callsBefore = (await kmsCalls()).length;

    await client.threads.delete(threadId);
    await within(
      (async () => {
        while (
          (await queryRows(database.url, 'select 1 from threads where thread_id = $1', [threadId]))
            .length > 0
        ) {
          await new Promise((done) => setTimeout(done, 50));
        }
      })(),
      10_000,
      'the deleted thread leaves its read model',
    );
    await expect(client.threads.get(threadId)).rejects.toThrow(/404/);

    const after = await dumpTables(database.url);
    const openedAfter = await openedWithTodaysKeys(database.url, kms, dumpedEvents);
    const inTables = occurrences(allRows(after), secret);
    const inOldLog = occurrences(openedAfter, secret);
    // What a full dump taken before the deletion still holds in clear: the read models' rows
    // (in clear under the master key too, see operations.md), by table.
    const oldReadModels = Object.fromEntries(
      [...before]
        .map(([table, rows]) => [table, occurrences(rows, secret)] as const)
        .filter(([, count]) => count > 0),
    );
    console.log(
      `custom encryption, erasure: ${plantedBefore} occurrences before the deletion (log opened ` +
        `through the KMS); found after it: ${inTables} in ${after.size} tables, ${inOldLog} in ` +
        `the ${dumpedEvents.length} events dumped before, opened with the key store as it stands; ` +
        `in clear in the read-model rows of that dump: ${JSON.stringify(oldReadModels)}`,
    );
    expect({ inTables, inOldLog }).toEqual({ inTables: 0, inOldLog: 0 });
    // Neither the log nor the key store of that dump holds it in clear.
    expect(oldReadModels).not.toHaveProperty('es_events');
    expect(oldReadModels).not.toHaveProperty('encryption_keys');
    const keys = await queryRows<{ scope: string }>(
      database.url,
      'select scope from encryption_keys',
    );
    expect(keys.map((key) => key.scope)).not.toContain(`thread:${threadId}`);
    // Destroying a key needs no KMS.
    expect((await kmsCalls()).slice(callsBefore)).toEqual([]);
  }, 120_000);
});
