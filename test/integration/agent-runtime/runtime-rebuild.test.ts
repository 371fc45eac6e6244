import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime } from '../../support/runtime-process.js';

const run = promisify(execFile);
const REBUILD = resolve('dist/apps/agent-runtime/src/rebuild-projections.js');

async function readModels(url: string): Promise<Record<string, unknown[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables: Record<string, unknown[]> = {};
    for (const [table, key] of [
      ['assistants', 'assistant_id'],
      ['threads', 'thread_id'],
      ['runs', 'run_id'],
      ['store_items', 'item_id'],
      ['crons', 'cron_id'],
    ] as const) {
      tables[table] = (await client.query(`select * from ${table} order by ${key}`)).rows;
    }
    return tables;
  } finally {
    await client.end();
  }
}

describe('npm run projections:rebuild:runtime', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('runtime_rebuild');
    const runtime = await startRuntime({ databaseUrl: database.url });
    try {
      const client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
      const assistant = await client.assistants.create({ graphId: 'agent', name: 'rebuilt' });
      await client.assistants.update(assistant.assistant_id, { context: { version: 2 } });
      const thread = await client.threads.create({ metadata: { purpose: 'rebuild' } });
      // Several runs: their values and outcomes are stored as what changed since the one before.
      for (let run = 0; run < 3; run += 1) {
        await client.runs.wait(thread.thread_id, 'agent', {
          input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
        });
      }
      await client.store.putItem(['rebuild', 'a'], 'kept', { text: 'first' }, { ttl: 60 });
      await client.store.putItem(['rebuild', 'a'], 'kept', { text: 'second' });
      await client.store.putItem(['rebuild', 'b'], 'gone', { text: 'deleted' });
      await client.store.deleteItem(['rebuild', 'b'], 'gone');
      const cron = await client.crons.create('agent', { schedule: '0 9 * * *' });
      await client.crons.update(cron.cron_id, { metadata: { rebuilt: true }, enabled: false });
    } finally {
      await runtime.stop();
    }
  }, 90_000);

  afterAll(async () => {
    await database.drop();
  });

  it('projects the whole log again into read models equal to the live ones', async () => {
    const before = await readModels(database.url);
    expect(before.assistants?.length).toBeGreaterThan(1);
    expect(before.runs).toHaveLength(3);
    const [thread] = before.threads as { values: { messages: unknown[] } }[];
    expect(thread?.values.messages).toHaveLength(12);
    expect(before.store_items).toHaveLength(1);
    expect(before.crons).toHaveLength(1);

    const { stdout } = await run(process.execPath, [REBUILD], {
      env: { ...process.env, DATABASE_URL: database.url },
    });
    expect(stdout).toMatch(/^assistants: \d+ events projected/m);
    expect(stdout).toMatch(/^threads: \d+ events projected/m);
    expect(stdout).toMatch(/^runs: \d+ events projected/m);
    expect(stdout).toMatch(/^store_items: \d+ events projected/m);
    expect(stdout).toMatch(/^crons: \d+ events projected/m);
    expect(await readModels(database.url)).toEqual(before);
  });

  it('refuses an unknown projection name before emptying anything', async () => {
    const before = await readModels(database.url);
    await expect(
      run(process.execPath, [REBUILD, 'no_such_projection'], {
        env: { ...process.env, DATABASE_URL: database.url },
      }),
    ).rejects.toMatchObject({
      stderr: expect.stringMatching(/Unknown projection no_such_projection/),
    });
    expect(await readModels(database.url)).toEqual(before);
  });
});
