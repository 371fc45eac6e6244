import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { allRows, dumpTables, occurrences } from '../../support/erasure-scan.js';

const planted = (what: string): string => `${what}-${randomBytes(6).toString('hex')}`;

/** What the SDK's HTTPError says of a refused request: its status and the body's `detail`. */
async function refusal(call: Promise<unknown>): Promise<{ status: number; detail: string }> {
  try {
    await call;
  } catch (error) {
    const failed = error as { status?: number; text?: string };
    const body = JSON.parse(failed.text ?? '{}') as { detail?: string };
    return { status: failed.status ?? 0, detail: body.detail ?? '' };
  }
  throw new Error('The request was not refused');
}

describe('LANGGRAPH_AES_JSON_KEYS: named metadata keys stored encrypted, returned in clear', () => {
  let database: TestDatabase;
  let runtime: RuntimeProcess;
  let client: Client;
  const secrets = {
    thread: planted('thread-api-key'),
    run: planted('run-ssn'),
    assistant: planted('assistant-api-key'),
    cron: planted('cron-api-key'),
    store: planted('store-api-key'),
    nested: planted('store-nested-ssn'),
  };
  const ids = { thread: '', run: '', assistant: '', cron: '' };

  beforeAll(async () => {
    database = await createTestDatabase('runtime_json_keys');
    runtime = await startRuntime({
      databaseUrl: database.url,
      env: {
        LANGGRAPH_AES_KEY: 'k'.repeat(32),
        LANGGRAPH_AES_JSON_KEYS: 'api_key, ssn,langgraph_auth_user_id',
      },
    });
    client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
    const thread = await client.threads.create({
      metadata: { api_key: secrets.thread, plain: 'visible' },
    });
    ids.thread = thread.thread_id;
    const run = await client.runs.create(ids.thread, 'agent', {
      input: { messages: [{ role: 'user', content: 'Weather in Lima?' }] },
      metadata: { ssn: secrets.run },
    });
    ids.run = run.run_id;
    await client.runs.join(ids.thread, ids.run);
    const assistant = await client.assistants.create({
      graphId: 'agent',
      metadata: { api_key: secrets.assistant, team: 'blue' },
    });
    ids.assistant = assistant.assistant_id;
    const cron = await client.crons.createForThread(ids.thread, 'agent', {
      schedule: '0 0 1 1 *',
      metadata: { api_key: secrets.cron },
    });
    ids.cron = cron.cron_id;
    await client.store.putItem(['json-keys'], 'item', {
      api_key: secrets.store,
      profile: { ssn: secrets.nested, city: 'Lima' },
    });
  }, 90_000);

  afterAll(async () => {
    await runtime.stop();
    await database.drop();
  });

  it('returns every named value decrypted through the official SDK', async () => {
    expect((await client.threads.get(ids.thread)).metadata).toMatchObject({
      api_key: secrets.thread,
      plain: 'visible',
    });
    expect((await client.runs.get(ids.thread, ids.run)).metadata).toMatchObject({
      ssn: secrets.run,
    });
    const assistant = await client.assistants.get(ids.assistant);
    expect(assistant.metadata).toMatchObject({ api_key: secrets.assistant, team: 'blue' });
    const [version] = await client.assistants.getVersions(ids.assistant);
    expect(version?.metadata).toMatchObject({ api_key: secrets.assistant });
    const crons = await client.crons.search({ threadId: ids.thread });
    expect(crons.map((cron) => cron.metadata)).toEqual([
      expect.objectContaining({ api_key: secrets.cron }),
    ]);
    expect((await client.store.getItem(['json-keys'], 'item'))?.value).toEqual({
      api_key: secrets.store,
      profile: { ssn: secrets.nested, city: 'Lima' },
    });
    const [found] = (await client.store.searchItems(['json-keys'])).items;
    expect(found?.value).toMatchObject({ api_key: secrets.store });
    const [listed] = await client.threads.search({ metadata: { plain: 'visible' } });
    expect(listed?.metadata).toMatchObject({ api_key: secrets.thread });
  });

  it('keeps no named value in clear in any row of any table', async () => {
    const dump = await dumpTables(database.url);
    const rows = allRows(dump);
    const found = Object.entries(secrets).flatMap(([name, secret]) =>
      [...dump].flatMap(([table, texts]) => {
        const count = occurrences(texts, secret);
        return count > 0 ? [`${name} in ${table}: ${count}`] : [];
      }),
    );
    console.log(
      `json keys: ${Object.keys(secrets).length} values planted, found in clear: ${found.length}`,
    );
    expect(found).toEqual([]);
    // The other keys stay as they were, so that filters on them work.
    expect(occurrences(rows, 'visible')).toBeGreaterThan(0);
  });

  it('answers 422 to a filter on an encrypted key, saying why', async () => {
    const why = /"api_key".*LANGGRAPH_AES_JSON_KEYS.*cannot be searched or filtered/;
    for (const call of [
      client.threads.search({ metadata: { api_key: secrets.thread } }),
      client.assistants.search({ metadata: { api_key: secrets.assistant } }),
      client.crons.search({ metadata: { api_key: secrets.cron } }),
      client.store.searchItems(['json-keys'], { filter: { api_key: secrets.store } }),
    ]) {
      const refused = await refusal(call);
      expect(refused.status).toBe(422);
      expect(refused.detail).toMatch(why);
    }
    const nested = await refusal(
      client.store.searchItems(['json-keys'], { filter: { profile: { ssn: secrets.nested } } }),
    );
    expect(nested).toMatchObject({ status: 422, detail: expect.stringContaining('"ssn"') });
  });
});
