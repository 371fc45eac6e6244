import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { Client, type Checkpoint } from '@langchain/langgraph-sdk';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { runtimeSuite } from '../../support/runtime-suite.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { queryRows } from '../../support/database-query.js';

const GRAPH_STATE_APP = resolve('test/fixtures/graph-state-app/langgraph.json');

/** The one element of a list the test has checked to have one. */
function only<T>(list: readonly T[]): T {
  const [item] = list;
  if (item === undefined || list.length !== 1)
    throw new Error(`expected one item, got ${list.length}`);
  return item;
}

interface Forecast {
  notes?: string[];
  route?: string;
  city?: string;
}

describe('default assistants, subgraph states and graph factories (graph-state-app)', () => {
  const suite = runtimeSuite(
    'runtime_graph_state',
    { maxRetries: 0 },
    {
      graphConfig: GRAPH_STATE_APP,
    },
  );

  async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${suite.runtime.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  const systemAssistant = async (graphId: string) => {
    const found = await suite.client.assistants.search({
      graphId,
      metadata: { created_by: 'system' },
    });
    expect(found).toHaveLength(1);
    return only(found);
  };

  describe("the request's headers, as the JS server passes them to the graph", () => {
    it('gives the graph x- headers and user-agent, never the API key nor a header named as a credential', async () => {
      const client = new Client({
        apiUrl: suite.runtime.url,
        apiKey: suite.runtime.apiKey,
        defaultHeaders: {
          'x-team': 'blue',
          'x-caller-token': 'token-of-the-caller',
          'user-agent': 'berth-test',
        },
      });
      const thread = await client.threads.create();
      const seen = await client.runs.wait(thread.thread_id, 'headers', { input: {} });
      expect(seen).toEqual({
        names: ['user-agent', 'x-team'],
        team: 'blue',
        agent: 'berth-test',
      });

      const [run] = await client.runs.list(thread.thread_id);
      expect(JSON.stringify(run)).not.toContain('token-of-the-caller');
      const recorded = await queryRows<{ n: string }>(
        suite.database.url,
        `select count(*) as n from es_events where data::text like '%token-of-the-caller%'`,
      );
      expect(recorded).toEqual([{ n: '0' }]);
    });
  });

  describe('LANGGRAPH_CONFIG from the env of langgraph.json', () => {
    it("creates each graph's default assistant with its config and context", async () => {
      const settings = await systemAssistant('settings');
      expect(settings).toMatchObject({
        name: 'settings',
        version: 1,
        config: { configurable: { tone: 'formal' } },
        context: { model: 'env-model' },
      });
      expect(settings.config).toEqual({ configurable: { tone: 'formal' } });
      expect(settings.context).toEqual({ model: 'env-model' });

      const forecast = await systemAssistant('forecast');
      expect(forecast.config).toEqual({});
      expect(forecast.context).toEqual({});
    });

    it('runs the default assistant with them; an assistant of its own has none', async () => {
      expect(await suite.client.runs.wait(null, 'settings', { input: {} })).toEqual({
        tone: 'formal',
        model: 'env-model',
      });
      const own = await suite.client.assistants.create({ graphId: 'settings' });
      expect(await suite.client.runs.wait(null, own.assistant_id, { input: {} })).toEqual({
        tone: 'none',
        model: 'none',
      });
    });

    it("builds a factory's default graph from them", async () => {
      expect(await suite.client.runs.wait(null, 'shaped', { input: {} })).toEqual({
        visits: ['from_env'],
      });
    });
  });

  describe('the state of a subgraph interrupted inside', () => {
    async function interruptedForecast(): Promise<string> {
      const { thread_id } = await suite.client.threads.create();
      const done = await suite.client.runs.wait(thread_id, 'forecast', {
        input: { notes: ['asked'] },
      });
      expect(done).toEqual({ notes: ['asked'], route: 'lookup' });
      return thread_id;
    }

    it("names the subgraph task's checkpoint, and with subgraphs its state as the JS server does", async () => {
      const threadId = await interruptedForecast();

      const state = await suite.client.threads.getState<Forecast>(threadId);
      expect(state.next).toEqual(['lookup']);
      expect(state.tasks).toEqual([
        {
          id: expect.any(String),
          name: 'lookup',
          path: ['__pregel_pull', 'lookup'],
          error: null,
          interrupts: [],
          checkpoint: {
            checkpoint_ns: expect.stringMatching(/^lookup:/),
            thread_id: threadId,
          },
          state: null,
          result: null,
        },
      ]);

      const inner = only(state.tasks).checkpoint;
      const recursive = await suite.client.threads.getState<Forecast>(threadId, undefined, {
        subgraphs: true,
      });
      expect(recursive.next).toEqual(['lookup']);
      expect(recursive.tasks).toEqual([
        {
          id: expect.any(String),
          name: 'lookup',
          path: ['__pregel_pull', 'lookup'],
          error: null,
          interrupts: [],
          checkpoint: null,
          result: null,
          state: {
            values: { notes: ['asked'], city: 'Lisbon' },
            next: ['report'],
            tasks: [
              {
                id: expect.any(String),
                name: 'report',
                path: ['__pregel_pull', 'report'],
                error: null,
                interrupts: [],
                checkpoint: null,
                state: null,
                result: null,
              },
            ],
            metadata: expect.objectContaining({ source: 'loop', step: 1 }),
            created_at: expect.any(String),
            checkpoint: {
              thread_id: threadId,
              checkpoint_ns: inner?.checkpoint_ns,
              checkpoint_id: expect.any(String),
              checkpoint_map: expect.any(Object),
            },
            parent_checkpoint: expect.objectContaining({ checkpoint_id: expect.any(String) }),
          },
        },
      ]);
    });

    it("reads, updates and lists the subgraph's own state by its checkpoint namespace", async () => {
      const threadId = await interruptedForecast();
      const { tasks } = await suite.client.threads.getState<Forecast>(threadId);
      const inner = only(tasks).checkpoint as Checkpoint;

      const before = await suite.client.threads.getState<Forecast>(threadId, inner);
      expect(before.values).toEqual({ notes: ['asked'], city: 'Lisbon' });
      expect(before.next).toEqual(['report']);
      expect(before.checkpoint).toMatchObject({
        thread_id: threadId,
        checkpoint_ns: inner.checkpoint_ns,
      });

      await suite.client.threads.updateState(threadId, {
        values: { city: 'Porto' },
        checkpoint: inner,
      });

      const after = await suite.client.threads.getState<Forecast>(threadId, inner);
      expect(after.values).toEqual({ notes: ['asked'], city: 'Porto' });
      expect(after.next).toEqual(['report']);
      expect(after.tasks).toEqual([
        {
          id: expect.any(String),
          name: 'report',
          path: ['__pregel_pull', 'report'],
          error: null,
          interrupts: [],
          checkpoint: null,
          state: null,
          result: null,
        },
      ]);
      // The root graph's state is still the one before the subgraph.
      expect((await suite.client.threads.getState<Forecast>(threadId)).values).toEqual({
        notes: ['asked'],
        route: 'lookup',
      });

      expect(await suite.client.runs.wait(threadId, 'forecast', { input: null })).toEqual({
        notes: ['asked', 'Sunny in Porto'],
        route: 'lookup',
      });

      const innerHistory = await suite.client.threads.getHistory<Forecast>(threadId, {
        checkpoint: inner,
      });
      expect(innerHistory.map(({ next, values }) => ({ next, values }))).toEqual([
        { next: [], values: { notes: ['asked', 'Sunny in Porto'], city: 'Porto' } },
        { next: ['report'], values: { notes: ['asked'], city: 'Porto' } },
        { next: ['report'], values: { notes: ['asked'], city: 'Lisbon' } },
        { next: ['pick_city'], values: { notes: ['asked'] } },
        { next: ['__start__'], values: {} },
      ]);
    });

    it('takes only the address keys of a checkpoint: its thread_id never names another thread', async () => {
      const threadId = await interruptedForecast();
      const other = await interruptedForecast();
      const elsewhere = { thread_id: other, checkpoint_ns: '' };

      const state = await post(`/threads/${threadId}/state/checkpoint`, { checkpoint: elsewhere });
      expect(state.status).toBe(200);
      expect((state.body as { checkpoint: Checkpoint }).checkpoint.thread_id).toBe(threadId);

      const history = await post(`/threads/${threadId}/history`, { checkpoint: elsewhere });
      expect(history.status).toBe(200);
      const threads = (history.body as { checkpoint: Checkpoint }[]).map(
        ({ checkpoint }) => checkpoint.thread_id,
      );
      expect(new Set(threads)).toEqual(new Set([threadId]));

      const updated = await post(`/threads/${threadId}/state`, {
        values: { route: 'elsewhere' },
        checkpoint: elsewhere,
      });
      expect(updated).toEqual({
        status: 200,
        body: { checkpoint: expect.objectContaining({ thread_id: threadId }) },
      });
      expect((await suite.client.threads.getState<Forecast>(other)).values.route).toBe('lookup');
    });

    it('answers a checkpoint whose address keys are not strings 422', async () => {
      const threadId = await interruptedForecast();
      expect(
        await post(`/threads/${threadId}/state/checkpoint`, { checkpoint: { checkpoint_ns: 7 } }),
      ).toEqual({
        status: 422,
        body: { detail: 'checkpoint.checkpoint_ns must be a string' },
      });
    });
  });

  describe("a graph factory, given the thread's config to read and write its state", () => {
    it("updates as a node of the graph the thread's assistant builds", async () => {
      const assistant = await suite.client.assistants.create({
        graphId: 'shaped',
        config: { configurable: { nodeName: 'assistant' } },
      });
      const { thread_id: threadId } = await suite.client.threads.create({ graphId: 'shaped' });
      expect(await suite.client.runs.wait(threadId, assistant.assistant_id, { input: {} })).toEqual(
        {
          visits: ['assistant'],
        },
      );

      const updated = await suite.client.threads.updateState(threadId, {
        values: { visits: 'update' },
        asNode: 'assistant',
      });
      expect(updated).toEqual({
        checkpoint: {
          thread_id: threadId,
          checkpoint_ns: '',
          checkpoint_id: expect.any(String),
        },
      });

      const state = await suite.client.threads.getState<{ visits: string[] }>(threadId);
      expect(state.values).toEqual({ visits: ['assistant', 'update'] });
      expect(state.metadata).toMatchObject({ source: 'update' });
      expect((await suite.client.threads.get(threadId)).values).toEqual({
        visits: ['assistant', 'update'],
      });
      const history = await suite.client.threads.getHistory<{ visits: string[] }>(threadId);
      expect(history.map(({ next, values }) => ({ next, values }))).toEqual([
        { next: [], values: { visits: ['assistant', 'update'] } },
        { next: [], values: { visits: ['assistant'] } },
        { next: ['assistant'], values: { visits: [] } },
        { next: ['__start__'], values: { visits: [] } },
      ]);
    });

    it('refuses a node the thread graph does not have 400', async () => {
      const { thread_id: threadId } = await suite.client.threads.create({ graphId: 'shaped' });
      await suite.client.runs.wait(threadId, 'shaped', { input: {} });
      expect(
        await post(`/threads/${threadId}/state`, { values: {}, as_node: 'assistant' }),
      ).toEqual({ status: 400, body: { detail: expect.stringContaining('assistant') } });
    });
  });
});

describe('LANGGRAPH_CONFIG changed between two starts', () => {
  let database: TestDatabase;
  let runtime: RuntimeProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('runtime_graph_state_restart');
  });
  afterAll(async () => {
    await runtime?.stop();
    await database.drop();
  });

  it('leaves an existing default assistant as it is, as the JS server does', async () => {
    runtime = await startRuntime({ databaseUrl: database.url, graphConfig: GRAPH_STATE_APP });
    const client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
    const [first] = await client.assistants.search({ graphId: 'settings' });
    expect(first?.config).toEqual({ configurable: { tone: 'formal' } });
    await runtime.stop();

    runtime = await startRuntime({
      databaseUrl: database.url,
      graphConfig: GRAPH_STATE_APP,
      env: { LANGGRAPH_CONFIG: '{"settings": {"configurable": {"tone": "casual"}}}' },
    });
    const again = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
    const settings = only(await again.assistants.search({ graphId: 'settings' }));
    expect(settings).toEqual(first);
    expect(await again.assistants.getVersions(settings.assistant_id)).toHaveLength(1);
  }, 90_000);

  it('refuses to start on a LANGGRAPH_CONFIG that is not JSON, saying so', async () => {
    await expect(
      startRuntime({
        databaseUrl: database.url,
        graphConfig: GRAPH_STATE_APP,
        env: { LANGGRAPH_CONFIG: '{settings' },
      }),
    ).rejects.toThrow('LANGGRAPH_CONFIG is not valid JSON');
  }, 90_000);
});
