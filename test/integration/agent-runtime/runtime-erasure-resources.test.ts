import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import {
  allRows,
  dumpEvents,
  dumpTables,
  occurrences,
  openedWithTodaysKeys,
} from '../../support/erasure-scan.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { queryRows } from '../../support/database-query.js';
import { within } from '../../support/within.js';

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

/** Polls the database until the query finds `rows` rows. */
async function rowsSoon(
  url: string,
  sql: string,
  values: unknown[],
  rows: number,
  what: string,
): Promise<void> {
  const poll = async (): Promise<void> => {
    while ((await queryRows(url, sql, values)).length !== rows) {
      await new Promise((done) => setTimeout(done, 100));
    }
  };
  await within(poll(), 15_000, what);
}

describe('a deleted store item, cron and assistant are erased, as an expired thread is', () => {
  let database: TestDatabase;
  let runtime: RuntimeProcess;
  let client: Client;
  const tag = randomBytes(6).toString('hex');
  const planted = {
    storeValue: `store-${tag}-VALUE`,
    storeExpired: `expiring-${tag}-VALUE`,
    cronPayload: `cron-${tag}-PAYLOAD`,
    cronMetadata: `cron-${tag}-META`,
    assistantName: `assistant-${tag}-NAME`,
    assistantDescription: `assistant-${tag}-DESCRIPTION`,
    assistantConfig: `assistant-${tag}-CONFIG`,
    assistantMetadata: `assistant-${tag}-META`,
    assistantVersion: `assistant-${tag}-VERSION2`,
    assistantThread: `assistant-${tag}-THREAD`,
    threadTtlMetadata: `ttl-${tag}-META`,
    threadTtlInput: `ttl-${tag}-INPUT`,
  };
  const kept = {
    store: `kept-${tag}-STORE`,
    assistant: `kept-${tag}-ASSISTANT`,
    cron: `kept-${tag}-CRON`,
  };
  const namespace = ['erasure', tag];

  beforeAll(async () => {
    database = await createTestDatabase('runtime_erasure_resources');
    runtime = await startRuntime({
      databaseUrl: database.url,
      env: {
        BERTH_MASTER_KEY: MASTER_KEY,
        BERTH_THREAD_SWEEP_SECONDS: '1',
        BERTH_STORE_SWEEP_SECONDS: '1',
      },
    });
    client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
  }, 90_000);

  afterAll(async () => {
    await runtime.stop();
    await database.drop();
  });

  it('finds none of the strings planted once each is deleted or expired', async () => {
    await client.store.putItem(namespace, 'deleted', { text: planted.storeValue });
    await client.store.putItem(namespace, 'kept', { text: kept.store, kind: 'kept' });

    const assistant = await client.assistants.create({
      graphId: 'agent',
      name: planted.assistantName,
      description: planted.assistantDescription,
      config: { configurable: { secret: planted.assistantConfig } },
      metadata: { note: planted.assistantMetadata },
    });
    await client.assistants.update(assistant.assistant_id, {
      metadata: { note: planted.assistantVersion },
    });
    const assistantThread = await client.threads.create();
    await client.runs.wait(assistantThread.thread_id, assistant.assistant_id, {
      input: {
        messages: [{ role: 'user', content: `Weather in Lima? ${planted.assistantThread}` }],
      },
    });
    const keptAssistant = await client.assistants.create({
      graphId: 'agent',
      metadata: { note: kept.assistant },
    });

    const cron = await client.crons.create('agent', {
      schedule: '0 0 1 1 *',
      input: { messages: [{ role: 'user', content: planted.cronPayload }] },
      metadata: { note: planted.cronMetadata },
    });
    const keptCron = await client.crons.create('agent', {
      schedule: '0 0 1 1 *',
      input: { messages: [{ role: 'user', content: kept.cron }] },
    });

    const expiring = await client.threads.create({
      metadata: { secret: planted.threadTtlMetadata },
    });
    await client.runs.wait(expiring.thread_id, 'agent', {
      input: {
        messages: [{ role: 'user', content: `Weather in Kyiv? ${planted.threadTtlInput}` }],
      },
    });

    const before = await dumpTables(database.url);
    const dumpedEvents = await dumpEvents(database.url);
    const logBefore = dumpedEvents.map((event) => JSON.stringify(event.data));
    const openedBefore = await openedWithTodaysKeys(database.url, MASTER_KEY, dumpedEvents);
    const plantedBefore: Record<string, number> = {};
    for (const [name, text] of Object.entries(planted)) {
      // The expiring item is written below, after the dump: counted from its own dump.
      if (name === 'storeExpired') continue;
      expect(occurrences(logBefore, text)).toBe(0);
      expect(occurrences(openedBefore, text)).toBeGreaterThan(0);
      plantedBefore[name] = occurrences(openedBefore, text) + occurrences(allRows(before), text);
    }

    // A store item with a TTL of 3 s, swept by the store's sweeper; dumped once readable.
    await client.store.putItem(
      namespace,
      'expiring',
      { text: planted.storeExpired },
      { ttl: 0.05 },
    );
    expect(await client.store.getItem(namespace, 'expiring', { refreshTtl: false })).not.toBeNull();
    const expiringTables = await dumpTables(database.url);
    const expiringEvents = await dumpEvents(database.url);
    const expiringOpened = await openedWithTodaysKeys(database.url, MASTER_KEY, expiringEvents);
    expect(
      occurrences(
        expiringEvents.map((event) => JSON.stringify(event.data)),
        planted.storeExpired,
      ),
    ).toBe(0);
    plantedBefore['storeExpired'] =
      occurrences(expiringOpened, planted.storeExpired) +
      occurrences(allRows(expiringTables), planted.storeExpired);

    await client.store.deleteItem(namespace, 'deleted');
    await client.assistants.delete(assistant.assistant_id, { deleteThreads: true });
    await client.crons.delete(cron.cron_id);
    await client.threads.update(expiring.thread_id, { ttl: 0.02 });

    await rowsSoon(
      database.url,
      `select 1 from es_events where stream_id = $1 and event_type = 'StoreItemExpired'`,
      [`store-${namespace.join('.')}`],
      1,
      'the store sweeper expires the item',
    );
    await rowsSoon(
      database.url,
      'select 1 from threads where thread_id = any($1)',
      [[expiring.thread_id, assistantThread.thread_id]],
      0,
      'the expired thread and the assistant thread leave their read model',
    );
    const expiredThread = await queryRows(
      database.url,
      `select 1 from es_events where stream_id = $1 and event_type = 'ThreadExpired'`,
      [`thread-${expiring.thread_id}`],
    );
    expect(expiredThread).toHaveLength(1);

    const after = await dumpTables(database.url);
    const openedAfter = await openedWithTodaysKeys(database.url, MASTER_KEY, [
      ...dumpedEvents,
      ...expiringEvents,
    ]);
    const found = Object.fromEntries(
      Object.entries(planted).map(([name, text]) => [
        name,
        occurrences(allRows(after), text) + occurrences(openedAfter, text),
      ]),
    );
    const plantedTotal = Object.values(plantedBefore).reduce((sum, count) => sum + count, 0);
    const foundTotal = Object.values(found).reduce((sum, count) => sum + count, 0);
    console.log(
      `Erasure of store items, crons, assistants and an expired thread: ` +
        `${Object.keys(planted).length} strings planted (${plantedTotal} occurrences before the ` +
        `deletions, log opened and tables: ${JSON.stringify(plantedBefore)}); found after the ` +
        `deletions: ${foundTotal} (${JSON.stringify(found)}), in ${after.size} tables and ` +
        `${dumpedEvents.length + expiringEvents.length} dumped events`,
    );
    expect(foundTotal).toBe(0);

    // What was not deleted is whole, and its read models filter and search in clear.
    expect(occurrences(openedAfter, kept.store)).toBeGreaterThan(0);
    const items = await client.store.searchItems(namespace, { filter: { kind: 'kept' } });
    expect(items.items.map((item) => item.value)).toEqual([{ text: kept.store, kind: 'kept' }]);
    expect(await client.store.getItem(namespace, 'deleted')).toBeNull();
    const assistants = await client.assistants.search({ metadata: { note: kept.assistant } });
    expect(assistants.map((found) => found.assistant_id)).toEqual([keptAssistant.assistant_id]);
    await expect(client.assistants.get(assistant.assistant_id)).rejects.toMatchObject({
      status: 404,
    });
    const crons = await client.crons.search({});
    expect(crons.map((found) => found.cron_id)).toContain(keptCron.cron_id);
    expect(crons.map((found) => found.cron_id)).not.toContain(cron.cron_id);
    await expect(client.threads.get(expiring.thread_id)).rejects.toMatchObject({ status: 404 });

    // The skeleton stays: the deletions, in clear, and the erased events as ContentErased.
    const history = await queryRows<{ event_type: string }>(
      database.url,
      'select event_type from es_events where stream_id = $1 order by stream_position',
      [`assistant-${assistant.assistant_id}`],
    );
    expect(history.map((row) => row.event_type)).toEqual([
      'AssistantCreated',
      'AssistantVersioned',
      'AssistantDeleted',
    ]);
  }, 120_000);

  it('rebuilds read models from zero equal to the live ones after the deletions', async () => {
    await runtime.stop();
    const live = await readModels(database.url);
    await run(process.execPath, [REBUILD], {
      env: { ...process.env, DATABASE_URL: database.url, BERTH_MASTER_KEY: MASTER_KEY },
    });
    expect(await readModels(database.url)).toEqual(live);
    runtime = await startRuntime({
      databaseUrl: database.url,
      env: { BERTH_MASTER_KEY: MASTER_KEY },
    });
    const again = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
    const item = await again.store.getItem(namespace, 'kept');
    expect(item?.value).toEqual({ text: kept.store, kind: 'kept' });
    // An item deleted can be written again, under a key of its own.
    await again.store.putItem(namespace, 'deleted', { text: 'again' });
    expect((await again.store.getItem(namespace, 'deleted'))?.value).toEqual({ text: 'again' });
  }, 120_000);
});
