import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const COMPAT_APP = resolve('test/fixtures/compat-app/langgraph.json');
const BROKEN_ONLY = resolve('test/fixtures/compat-app/broken-only.json');
const TOO_NEW_NODE = resolve('test/fixtures/compat-app/too-new-node.json');
const BROKEN_REASON = 'compat-app: the broken graph refuses to load';

describe('a LangGraph.js application with a graph that fails to load', () => {
  let database: TestDatabase;
  let runtime: RuntimeProcess;
  let client: Client;

  beforeAll(async () => {
    database = await createTestDatabase('runtime_compat_app');
    runtime = await startRuntime({ databaseUrl: database.url, graphConfig: COMPAT_APP });
    client = new Client({
      apiUrl: runtime.url,
      apiKey: runtime.apiKey,
      callerOptions: { maxRetries: 0 },
    });
  }, 90_000);
  afterAll(async () => {
    await runtime.stop();
    await database.drop();
  });

  const call = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${runtime.url}${path}`, {
      ...init,
      headers: { 'x-api-key': runtime.apiKey, 'content-type': 'application/json' },
    });

  it('serves the graphs that loaded, with the env object in process.env', async () => {
    const thread = await client.threads.create();
    const result = await client.runs.wait(thread.thread_id, 'greeter', { input: {} });
    expect(result).toEqual({ text: 'hello from env' });
  });

  it('calls a graph factory with the run config', async () => {
    const result = await client.runs.wait(null, 'configured', {
      input: {},
      config: { configurable: { suffix: ', configured' } },
    });
    expect(result).toEqual({ text: 'hello from env, configured' });
  });

  it("gives the SDK's getLogger() the server's logger, at import and at run time", async () => {
    expect(runtime.output()).toContain(
      'info: compat-app: logged graph imported {"graph":"logged"}',
    );
    expect(await client.runs.wait(null, 'logged', { input: {} })).toEqual({ text: 'logged' });
    await runtime.printed('warn: compat-app: logged graph ran {"node":"log"}');
  });

  it('gives the JSON schemas of a graph whose state is declared with zod', async () => {
    const schemas = await client.assistants.getSchemas('structured');
    expect(schemas.graph_id).toBe('structured');
    expect(schemas.state_schema).toMatchObject({
      type: 'object',
      properties: {
        topic: { type: 'string', description: 'What to summarize' },
        words: { type: 'integer' },
        summary: { type: 'string' },
      },
    });
    expect(schemas.input_schema).toMatchObject({ properties: { topic: { type: 'string' } } });
    expect(schemas.output_schema).toMatchObject({ properties: { summary: { type: 'string' } } });
  });

  it('answers the structure of an assistant on the failed graph 503 with the reason', async () => {
    const response = await call('/assistants/broken/graph');
    expect(response.status).toBe(503);
    expect(((await response.json()) as { detail: string }).detail).toContain(BROKEN_REASON);
  });

  it('lists the failed graph with its error in /info, and logs it', async () => {
    const info = (await (await call('/info')).json()) as {
      graphs: string[];
      failed_graphs: Record<string, string>;
    };
    expect(info.graphs).toEqual(['greeter', 'configured', 'logged', 'structured']);
    expect(Object.keys(info.failed_graphs)).toEqual(['broken']);
    expect(info.failed_graphs['broken']).toContain(BROKEN_REASON);
    expect(runtime.output()).toContain('graph "broken" is not served');
    expect(runtime.output()).toContain(BROKEN_REASON);
  });

  it('answers /info without the key with versions and flags only, as the JS server', async () => {
    for (const headers of [{}, { 'x-api-key': 'not-the-key' }] as Record<string, string>[]) {
      const response = await fetch(`${runtime.url}/info`, { headers });
      expect(response.status).toBe(200);
      const info = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(info).sort()).toEqual(['flags', 'langgraph_js_version', 'version']);
      expect(info).toMatchObject({ version: expect.any(String), flags: { assistants: true } });
      expect(JSON.stringify(info)).not.toContain(BROKEN_REASON);
    }
    // Open is /info alone: the routes beside it still want the key.
    expect((await fetch(`${runtime.url}/assistants/search`, { method: 'POST' })).status).toBe(401);
  });

  it('answers a run on the failed graph 503 with the reason', async () => {
    const thread = await client.threads.create();
    const response = await call(`/threads/${thread.thread_id}/runs`, {
      method: 'POST',
      body: JSON.stringify({ assistant_id: 'broken', input: {} }),
    });
    expect(response.status).toBe(503);
    const body = (await response.json()) as { detail: string };
    expect(body.detail).toContain(BROKEN_REASON);
    await expect(client.runs.wait(null, 'broken', { input: {} })).rejects.toThrow(BROKEN_REASON);
  });

  it('answers an assistant created on the failed graph 503 with the reason', async () => {
    const response = await call('/assistants', {
      method: 'POST',
      body: JSON.stringify({ graph_id: 'broken' }),
    });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { detail: string }).detail).toContain(BROKEN_REASON);
  });
});

describe('a LangGraph.js application whose every graph fails to load', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('runtime_compat_broken');
  });
  afterAll(async () => {
    await database.drop();
  });

  it('refuses to start, printing the reasons and then what to do, as one that cannot start', async () => {
    await expect(
      startRuntime({ databaseUrl: database.url, graphConfig: BROKEN_ONLY }),
    ).rejects.toThrow(
      /exited with 78 before it was ready:[\s\S]*no graph could be loaded[\s\S]*compat-app: the broken graph refuses to load\nMend the graphs above in \S*broken-only\.json, then start again\./,
    );
  }, 90_000);
});

describe('a LangGraph.js application requiring a newer Node', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('runtime_compat_node');
  });
  afterAll(async () => {
    await database.drop();
  });

  it('refuses to start, naming the required and the running version', async () => {
    await expect(
      startRuntime({ databaseUrl: database.url, graphConfig: TOO_NEW_NODE }),
    ).rejects.toThrow(
      `too-new-node.json: "node_version" requires Node 99 or newer; this runtime runs Node ${process.versions.node}`,
    );
  }, 90_000);
});
