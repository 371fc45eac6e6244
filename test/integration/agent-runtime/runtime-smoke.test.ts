import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';

describe('agent runtime over HTTP with the official SDK', () => {
  let database: TestDatabase;
  let runtime: RuntimeProcess;
  let client: Client;

  beforeAll(async () => {
    database = await createTestDatabase('runtime_smoke');
    runtime = await startRuntime({ databaseUrl: database.url });
    client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
  }, 90_000);

  afterAll(async () => {
    await runtime.stop();
    await database.drop();
  });

  it('runs the example agent on a thread: a tool call, then the answer', async () => {
    const thread = await client.threads.create();
    const result = (await client.runs.wait(thread.thread_id, 'agent', {
      input: { messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] },
    })) as { messages: { type: string; content: string; tool_calls?: { name: string }[] }[] };

    expect(result.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(result.messages[1]?.tool_calls?.[0]?.name).toBe('get_weather');
    expect(result.messages[3]?.content).toContain('Oslo');
    const runs = await client.runs.list(thread.thread_id);
    expect(runs.map((run) => run.status)).toEqual(['success']);
    expect((await client.threads.get(thread.thread_id)).status).toBe('idle');
  });
});
