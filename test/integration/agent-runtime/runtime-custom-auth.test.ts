import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Client, type AssistantVersion } from '@langchain/langgraph-sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { queryRows } from '../../support/database-query.js';
import { connectMcp } from '../../support/mcp-client.js';
import { openSocket, refusedUpgrade, threadSocketUrl } from '../../support/protocol-socket.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

const AUTH_APP = resolve('test/fixtures/compat-app/auth-app.json');

describe("the application's own authentication (auth.path), through the official SDK", () => {
  const suite = runtimeSuite('runtime_custom_auth', { maxRetries: 0 }, { graphConfig: AUTH_APP });
  const as = (user: string): Client =>
    new Client({
      apiUrl: suite.runtime.url,
      apiKey: null,
      defaultHeaders: { authorization: `Bearer user-${user}` },
      callerOptions: { maxRetries: 0 },
    });

  it('refuses a request its authenticate refuses, with its status and message', async () => {
    const response = await fetch(`${suite.runtime.url}/threads/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      detail: 'compat-app: a bearer token user-<name> is required',
    });
  });

  it('answers /info to anyone, showing graphs only to a user authenticate accepts', async () => {
    const publicKeys = ['flags', 'langgraph_js_version', 'version'];
    for (const headers of [{}, { authorization: 'Bearer nobody' }] as Record<string, string>[]) {
      const response = await fetch(`${suite.runtime.url}/info`, { headers });
      expect(response.status).toBe(200);
      expect(Object.keys((await response.json()) as object).sort()).toEqual(publicKeys);
    }
    const asUser = await fetch(`${suite.runtime.url}/info`, {
      headers: { authorization: 'Bearer user-alice' },
    });
    expect(await asUser.json()).toMatchObject({ graphs: ['greeter', 'whoami'], failed_graphs: {} });
    const asPlatform = await fetch(`${suite.runtime.url}/info`, {
      headers: { 'x-api-key': suite.runtime.apiKey },
    });
    expect(await asPlatform.json()).toMatchObject({ graphs: ['greeter', 'whoami'] });
  });

  it("keeps one user's threads and runs from another", async () => {
    const alice = as('alice');
    const bob = as('bob');
    const thread = await alice.threads.create({ metadata: { topic: 'tea' } });
    expect(thread.metadata).toMatchObject({ owner: 'alice', topic: 'tea' });
    const run = await alice.runs.wait(thread.thread_id, 'greeter', { input: {} });
    expect(run).toEqual({ text: 'hello from env' });

    await expect(bob.threads.get(thread.thread_id)).rejects.toThrow(/404/);
    await expect(bob.threads.getState(thread.thread_id)).rejects.toThrow(/404/);
    await expect(bob.runs.list(thread.thread_id)).rejects.toThrow(/404/);
    await expect(bob.runs.wait(thread.thread_id, 'greeter', { input: {} })).rejects.toThrow(/404/);
    await expect(
      bob.threads.update(thread.thread_id, { metadata: { owner: 'bob' } }),
    ).rejects.toThrow(/404/);
    await expect(bob.threads.delete(thread.thread_id)).rejects.toThrow(/404/);

    // Naming Alice's thread in a create does not hand it over, even with if_exists do_nothing.
    await expect(
      bob.threads.create({ threadId: thread.thread_id, ifExists: 'do_nothing' }),
    ).rejects.toThrow(/409/);
    const bobs = await bob.threads.create();
    expect((await bob.threads.search()).map((t) => t.thread_id)).toEqual([bobs.thread_id]);
    expect(await bob.threads.count()).toBe(1);
    // Asking for Alice's threads by metadata finds none.
    expect(await bob.threads.search({ metadata: { owner: 'alice' } })).toEqual([]);
    expect((await alice.threads.search()).map((t) => t.thread_id)).toEqual([thread.thread_id]);
    expect(await alice.threads.get(thread.thread_id)).toMatchObject({
      thread_id: thread.thread_id,
    });
  });

  it("opens WebSockets with a user's browser ticket as that user: their threads, not another's", async () => {
    const alices = await as('alice').threads.create();
    const bobs = await as('bob').threads.create();
    const issue = (authorization: string): Promise<Response> =>
      fetch(`${suite.runtime.url}/stream/tickets`, { method: 'POST', headers: { authorization } });
    expect((await issue('Bearer nobody')).status).toBe(401);
    const issued = await issue('Bearer user-bob');
    expect(issued.status).toBe(200);
    const offered = [`berth.ticket.${((await issued.json()) as { ticket: string }).ticket}`];
    const socket = await openSocket(threadSocketUrl(suite.runtime.url, bobs.thread_id), offered);
    socket.close();
    expect(
      await refusedUpgrade(threadSocketUrl(suite.runtime.url, alices.thread_id), offered),
    ).toEqual({ status: 404, body: { detail: expect.any(String) } });
  });

  it('writes what the handler adds to the metadata of a run', async () => {
    const carol = as('carol');
    const thread = await carol.threads.create();
    const run = await carol.runs.create(thread.thread_id, 'greeter', { input: {} });
    expect(run.metadata).toMatchObject({ run_by: 'carol' });
  });

  it('refuses with 403 what a handler refuses', async () => {
    const mallory = as('mallory');
    const thread = await mallory.threads.create();
    await expect(mallory.threads.delete(thread.thread_id)).rejects.toThrow(/403/);
  });

  it("filters assistants by the handler's $eq filter", async () => {
    const alice = as('alice');
    const bob = as('bob');
    const mine = await alice.assistants.create({ graphId: 'greeter', name: 'alice-greeter' });
    expect(mine.metadata).toMatchObject({ owner: 'alice' });
    await expect(bob.assistants.get(mine.assistant_id)).rejects.toThrow(/404/);
    expect(
      (await bob.assistants.search({ graphId: 'greeter' })).map((a) => a.assistant_id),
    ).not.toContain(mine.assistant_id);
    expect(
      (await alice.assistants.search({ graphId: 'greeter' })).map((a) => a.assistant_id),
    ).toContain(mine.assistant_id);
  });

  it('records the user who made each version of an assistant, and the platform for its key', async () => {
    const alice = as('alice');
    const made = await alice.assistants.create({ graphId: 'greeter', name: 'alice-versions' });
    await alice.assistants.update(made.assistant_id, { name: 'alice-versions-2' });
    const platform = new Client({ apiUrl: suite.runtime.url, apiKey: suite.runtime.apiKey });
    await platform.assistants.update(made.assistant_id, { name: 'alice-versions-3' });
    const versions = (await alice.assistants.getVersions(
      made.assistant_id,
    )) as (AssistantVersion & {
      changed_by: unknown;
    })[];
    expect(versions.map((version) => [version.version, version.changed_by])).toEqual([
      [3, { kind: 'platform' }],
      [2, { kind: 'user', identity: 'alice' }],
      [1, { kind: 'user', identity: 'alice' }],
    ]);
  });

  it("keeps one user's crons from another, and their threads from the other's crons", async () => {
    const alice = as('alice');
    const bob = as('bob');
    const cron = await alice.crons.create('greeter', { schedule: '0 9 * * *', metadata: { x: 1 } });
    expect(cron.metadata).toMatchObject({ owner: 'alice', x: 1 });
    expect((cron as { user_id?: string }).user_id).toBe('alice');
    expect((await alice.crons.search()).map((found) => found.cron_id)).toContain(cron.cron_id);
    expect(await bob.crons.search()).toEqual([]);
    expect(await bob.crons.count()).toBe(0);
    await expect(bob.crons.update(cron.cron_id, { enabled: false })).rejects.toThrow(/404/);
    await expect(bob.crons.delete(cron.cron_id)).rejects.toThrow(/404/);
    const thread = await alice.threads.create();
    await expect(
      bob.crons.createForThread(thread.thread_id, 'greeter', { schedule: '0 9 * * *' }),
    ).rejects.toThrow(/404/);
    await alice.crons.delete(cron.cron_id);
  });

  it('lets the platform (the API key) see every user', async () => {
    const platform = new Client({ apiUrl: suite.runtime.url, apiKey: suite.runtime.apiKey });
    const owners = (await platform.threads.search({ limit: 50 })).map((t) => t.metadata?.['owner']);
    expect(new Set(owners)).toEqual(new Set(['alice', 'bob', 'carol', 'mallory']));
  });

  interface WhoAmI {
    readonly notes: string[];
    readonly user_id: string;
    readonly user: Record<string, unknown> | null;
    readonly permissions: string[] | null;
  }
  const keepNote = async (user: string, note: string, config?: object): Promise<WhoAmI> => {
    const client = as(user);
    const thread = await client.threads.create();
    return (await client.runs.wait(thread.thread_id, 'whoami', {
      input: { note },
      ...(config ? { config } : {}),
    })) as unknown as WhoAmI;
  };

  it("gives the graph its user in configurable, and the graph scopes the store by the user's id", async () => {
    expect(await keepNote('judy', 'tea')).toEqual({
      note: 'tea',
      notes: ['tea'],
      user_id: 'judy',
      user: {
        identity: 'judy',
        display_name: 'judy',
        permissions: ['chat'],
        is_authenticated: true,
        plan: 'free',
        secret_seen: true,
      },
      permissions: ['chat'],
    });
    expect((await keepNote('judy', 'cake')).notes).toEqual(['cake', 'tea']);
    // A user cannot run as another by naming them in the config.
    const kim = await keepNote('kim', 'jam', {
      configurable: {
        langgraph_auth_user_id: 'judy',
        langgraph_auth_user: { identity: 'judy' },
        langgraph_auth_permissions: ['admin'],
      },
    });
    expect(kim).toMatchObject({ notes: ['jam'], user_id: 'kim', permissions: ['chat'] });
    expect(kim.user).toMatchObject({ identity: 'kim', secret_seen: true });

    expect(await as('judy').store.getItem(['judy', 'notes'], 'cake')).toMatchObject({
      value: { text: 'cake' },
    });
    // The store handler puts Kim's namespaces under her own name: Judy's notes are not hers.
    expect(await as('kim').store.getItem(['judy', 'notes'], 'cake')).toBeNull();
  });

  it("keeps the user's id in the run's record, and the user itself out of the event log", async () => {
    const client = as('liam');
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'whoami', { input: { note: 'x' } });
    await client.runs.join(thread.thread_id, run.run_id);
    // The SDK's Run type leaves `kwargs` out; the server sends it.
    const recorded = (await client.runs.get(thread.thread_id, run.run_id)) as unknown as {
      kwargs: { config: { configurable: Record<string, unknown> } };
    };
    const configurable = recorded.kwargs.config.configurable;
    expect(configurable).toMatchObject({ langgraph_auth_user_id: 'liam', user_id: 'liam' });
    expect(configurable).not.toHaveProperty('langgraph_auth_user');
    expect(configurable).not.toHaveProperty('langgraph_auth_permissions');

    const secrets = await queryRows<{ n: string }>(
      suite.database.url,
      `select count(*) as n from es_events where data::text like '%secret-of-%'`,
    );
    expect(secrets).toEqual([{ n: '0' }]);
    const queued = await queryRows(
      suite.database.url,
      'select run_id from run_queue where run_id = $1',
      [run.run_id],
    );
    expect(queued).toEqual([]);
  });

  it('copies a thread for a user who may read it and create threads, as the JS server', async () => {
    const frank = as('frank');
    const thread = await frank.threads.create({ metadata: { topic: 'jam' } });
    await frank.runs.wait(thread.thread_id, 'greeter', { input: {} });

    // Frank with only the read permission sees the thread, but may not copy it.
    const reader = new Client({
      apiUrl: suite.runtime.url,
      apiKey: null,
      defaultHeaders: { authorization: 'Bearer reader-frank' },
      callerOptions: { maxRetries: 0 },
    });
    expect((await reader.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
    await expect(reader.threads.copy(thread.thread_id)).rejects.toThrow(/403.*Not authorized/);

    // Another user is told 409, the same for a thread that does not exist.
    await expect(as('grace').threads.copy(thread.thread_id)).rejects.toThrow(/409/);
    await expect(as('grace').threads.copy(randomUUID())).rejects.toThrow(/409/);

    const copy = await frank.threads.copy(thread.thread_id);
    expect(copy.thread_id).not.toBe(thread.thread_id);
    expect(copy.metadata).toMatchObject({ owner: 'frank', topic: 'jam' });
    expect((await frank.threads.getState(copy.thread_id)).values).toEqual({
      text: 'hello from env',
    });
    const ownThreads = (await frank.threads.search()).map((found) => found.thread_id);
    expect(ownThreads.sort()).toEqual([thread.thread_id, copy.thread_id].sort());
    expect(await as('grace').threads.search()).toEqual([]);
  });

  it("answers a join of another user's run with a stream of one error event", async () => {
    const owner = as('heidi');
    const thread = await owner.threads.create();
    const run = await owner.runs.create(thread.thread_id, 'greeter', { input: {} });
    await owner.runs.join(thread.thread_id, run.run_id);

    const joined = [];
    for await (const chunk of as('ivan').runs.joinStream(thread.thread_id, run.run_id)) {
      joined.push(chunk);
    }
    expect(joined).toEqual([
      { event: 'error', data: { error: 'HTTPException', message: '404: Thread not found' } },
    ]);
    const statelessJoin = await fetch(`${suite.runtime.url}/runs/${run.run_id}/stream`, {
      headers: { authorization: 'Bearer user-ivan' },
    });
    expect(statelessJoin.status).toBe(200);
    expect(await statelessJoin.text()).toContain('404: Thread not found');

    const ownJoin = [];
    for await (const chunk of owner.runs.joinStream(thread.thread_id, run.run_id, {
      lastEventId: '-1',
    })) {
      ownJoin.push(chunk.event);
    }
    expect(ownJoin).toContain('values');
    expect(ownJoin).not.toContain('error');
  });

  it("serves MCP with each user's own assistants as tools, and their threads", async () => {
    await as('dave').assistants.create({ graphId: 'greeter', name: 'dave-greeter' });
    await as('erin').assistants.create({ graphId: 'greeter', name: 'erin-greeter' });
    const mcpAs = (user: string) =>
      connectMcp(suite.runtime.url, { authorization: `Bearer user-${user}` });
    const dave = await mcpAs('dave');
    const erin = await mcpAs('erin');
    try {
      expect((await dave.client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'dave-greeter',
      ]);
      const result = (await dave.client.callTool({
        name: 'dave-greeter',
        arguments: {},
      })) as CallToolResult;
      expect(result.structuredContent).toEqual({ text: 'hello from env' });
      const threadId = String(result._meta?.['thread_id']);
      // The thread and the run went through the handlers, as POST /threads and /runs do.
      const thread = await as('dave').threads.get(threadId);
      expect(thread.metadata).toMatchObject({ owner: 'dave', graph_id: 'greeter' });
      const [run] = await as('dave').runs.list(threadId);
      expect(run?.metadata).toMatchObject({ run_by: 'dave' });

      await expect(
        erin.client.callTool({ name: 'dave-greeter', arguments: {} }),
      ).rejects.toMatchObject({ code: -32602 });
      const onDavesThread = (await erin.client.callTool({
        name: 'erin-greeter',
        arguments: { thread_id: threadId },
      })) as CallToolResult;
      expect(onDavesThread).toMatchObject({ isError: true });
      expect(JSON.stringify(onDavesThread.content)).toMatch(/not found/);
    } finally {
      await Promise.all([dave.client.close(), erin.client.close()]);
    }
    const anonymous = await fetch(`${suite.runtime.url}/mcp`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({
      detail: 'compat-app: a bearer token user-<name> is required',
    });
  });

  it('gives a run queued before a restart its user when it runs after', async () => {
    const client = as('mona');
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, 'whoami', {
      input: { note: 'later' },
      afterSeconds: 3,
    });
    await suite.restart();
    const result = (await as('mona').runs.join(thread.thread_id, run.run_id)) as unknown as WhoAmI;
    expect(result).toMatchObject({ notes: ['later'], user_id: 'mona', permissions: ['chat'] });
    expect(result.user).toMatchObject({ identity: 'mona', secret_seen: true });
  });
});
