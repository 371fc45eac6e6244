import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { queryRows } from '../../support/database-query.js';
import { within } from '../../support/within.js';
import {
  allRows,
  dumpEvents,
  dumpTables,
  occurrences,
  openedWithTodaysKeys,
} from '../../support/erasure-scan.js';

const run = promisify(execFile);
const REBUILD = resolve('dist/apps/agent-runtime/src/rebuild-projections.js');
const MASTER_KEY = randomBytes(32).toString('hex');
const READ_MODELS = [
  ['assistants', 'assistant_id'],
  ['threads', 'thread_id'],
  ['runs', 'run_id'],
  ['store_items', 'item_id'],
  ['crons', 'cron_id'],
] as const;

async function readModels(url: string): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {};
  for (const [table, key] of READ_MODELS) {
    tables[table] = await queryRows(url, `select * from ${table} order by ${key}`);
  }
  return tables;
}

describe('a deleted thread is erased: from every table, and from the log dumped before', () => {
  let database: TestDatabase;
  let runtime: RuntimeProcess;
  let client: Client;
  const tag = randomBytes(6).toString('hex');
  const planted = {
    input: `card-4111-${tag}-INPUT`,
    metadata: `passport-${tag}-META`,
    runMetadata: `note-${tag}-RUNMETA`,
    state: `diagnosis-${tag}-STATE`,
    pruned: `pruned-${tag}-PRUNE`,
  };
  const kept = `kept-${tag}-LIVE`;
  const keptSecret = kept;

  beforeAll(async () => {
    database = await createTestDatabase('runtime_erasure');
    runtime = await startRuntime({
      databaseUrl: database.url,
      env: { BERTH_MASTER_KEY: MASTER_KEY },
    });
    client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
  }, 90_000);

  afterAll(async () => {
    await runtime.stop();
    await database.drop();
  });

  it('finds none of the strings planted in threads once deleted or pruned, and 404s their runs', async () => {
    const thread = await client.threads.create({ metadata: { secret: planted.metadata } });
    const run = await client.runs.create(thread.thread_id, 'agent', {
      input: { messages: [{ role: 'user', content: `Weather in Paris? ${planted.input}` }] },
      metadata: { note: planted.runMetadata },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ role: 'user', content: planted.state }] },
    });
    // Another thread deleted through POST /threads/prune.
    const prunedThread = await client.threads.create({ metadata: { secret: planted.pruned } });
    await client.runs.wait(prunedThread.thread_id, 'agent', {
      input: { messages: [{ role: 'user', content: `Weather in Rome? ${planted.pruned}` }] },
    });
    const other = await client.threads.create({ metadata: { secret: kept } });
    await client.runs.wait(other.thread_id, 'agent', {
      input: { messages: [{ role: 'user', content: `Weather in Oslo? ${kept}` }] },
    });

    const before = await dumpTables(database.url);
    const dumpedEvents = await dumpEvents(database.url);
    // At rest, the log holds none of it in clear; opened with the keys, all of it.
    const logBefore = dumpedEvents.map((event) => JSON.stringify(event.data));
    const openedBefore = await openedWithTodaysKeys(database.url, MASTER_KEY, dumpedEvents);
    for (const text of [...Object.values(planted), kept]) {
      expect(occurrences(logBefore, text)).toBe(0);
      expect(occurrences(openedBefore, text)).toBeGreaterThan(0);
    }
    const plantedBefore = Object.values(planted).reduce(
      (sum, text) => sum + occurrences(openedBefore, text) + occurrences(allRows(before), text),
      0,
    );

    await client.threads.delete(thread.thread_id);
    expect(await client.threads.prune([prunedThread.thread_id])).toEqual({ pruned_count: 1 });
    await within(
      (async () => {
        while (
          (
            await queryRows(database.url, 'select 1 from threads where thread_id = any($1)', [
              [thread.thread_id, prunedThread.thread_id],
            ])
          ).length > 0
        ) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(),
      10_000,
      'the deleted threads leave their read model',
    );

    const after = await dumpTables(database.url);
    const openedAfter = await openedWithTodaysKeys(database.url, MASTER_KEY, dumpedEvents);
    const found = Object.fromEntries(
      Object.entries(planted).map(([field, text]) => [
        field,
        occurrences(allRows(after), text) + occurrences(openedAfter, text),
      ]),
    );
    const foundTotal = Object.values(found).reduce((sum, count) => sum + count, 0);
    console.log(
      `Erasure: ${Object.keys(planted).length} strings planted (${plantedBefore} occurrences ` +
        `before the deletion, log opened and tables); found after the deletion: ${foundTotal} ` +
        `(${JSON.stringify(found)}), in ${after.size} tables and ${dumpedEvents.length} dumped events`,
    );
    expect(found).toEqual({ input: 0, metadata: 0, runMetadata: 0, state: 0, pruned: 0 });
    // The other thread is still whole.
    expect(occurrences(openedAfter, kept)).toBeGreaterThan(0);
    expect((await client.threads.get(other.thread_id)).metadata).toMatchObject({ secret: kept });

    await expect(client.runs.get(thread.thread_id, run.run_id)).rejects.toThrow(/404/);
    await expect(client.runs.join(thread.thread_id, run.run_id)).rejects.toThrow(/404/);
    const replay = await fetch(
      `${runtime.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`,
      {
        headers: { 'x-api-key': runtime.apiKey, 'last-event-id': '0' },
      },
    );
    expect(replay.status).toBe(404);
    expect(await replay.json()).toHaveProperty('detail');
  }, 120_000);

  it('rebuilds read models from zero equal to the live ones after the deletion', async () => {
    await runtime.stop();
    const live = await readModels(database.url);
    await run(process.execPath, [REBUILD], {
      env: { ...process.env, DATABASE_URL: database.url, BERTH_MASTER_KEY: MASTER_KEY },
    });
    expect(await readModels(database.url)).toEqual(live);
    // Started again, the runtime reads what its key store still holds.
    runtime = await startRuntime({
      databaseUrl: database.url,
      env: { BERTH_MASTER_KEY: MASTER_KEY },
    });
    const again = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
    const [kept] = await again.threads.search({ metadata: { secret: keptSecret } });
    expect(kept).toBeDefined();
    await expect(again.threads.get(randomUUID())).rejects.toThrow(/404/);
  }, 120_000);
});
