import { describe, expect, it, jest } from '@jest/globals';
import { resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { runtimeSuite } from '../../support/runtime-suite.js';

const HTTP_APP = resolve('test/fixtures/compat-app/http-app.json');
const AUTH_HTTP_APP = resolve('test/fixtures/compat-app/auth-http-app.json');

// Runs end to end, some through the application's own routes: more than Jest's default 5 s.
jest.setTimeout(30_000);

describe("an application's Hono app (http.app) wrapping Berth's routes, as under langgraph dev", () => {
  const suite = runtimeSuite('runtime_http_app', { maxRetries: 0 }, { graphConfig: HTTP_APP });

  const call = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${suite.runtime.url}${path}`, {
      ...init,
      headers: { 'x-api-key': suite.runtime.apiKey, ...(init.headers as Record<string, string>) },
    });
  const postJson = (
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ) =>
    call(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });

  it("runs the application's middleware around Berth's /info, and lets it answer instead", async () => {
    const info = await call('/info');
    expect(info.status).toBe(200);
    expect(info.headers.get('x-app-middleware')).toBe('true');
    expect(await info.json()).toHaveProperty('version');
    const interrupted = await call('/info?interrupt');
    expect(await interrupted.json()).toEqual({ status: 'interrupted' });
  });

  it("runs it around a run's routes, the SSE stream included", async () => {
    const waited = await postJson('/runs/wait', { assistant_id: 'greeter', input: {} });
    expect(waited.headers.get('x-app-middleware')).toBe('true');
    expect(await waited.json()).toEqual({ text: 'hello from env' });
    const stream = await postJson('/runs/stream', { assistant_id: 'greeter', input: {} });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expect(stream.headers.get('x-app-middleware')).toBe('true');
    const events = await stream.text();
    expect(events).toContain('event: metadata');
    expect(events).toContain('"hello from env"');
  });

  it('tells the run its client left, through the middleware', async () => {
    const thread = await suite.client.threads.create();
    const leaving = new AbortController();
    const stream = await postJson(
      `/threads/${thread.thread_id}/runs/stream`,
      {
        assistant_id: 'counter',
        input: {},
        stream_mode: ['custom'],
        on_disconnect: 'cancel',
      },
      {},
      leaving.signal,
    );
    expect(stream.headers.get('x-app-middleware')).toBe('true');
    if (!stream.body) throw new Error('no stream');
    const reader = stream.body.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('"tick"')) {
      const chunk = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (chunk.done) throw new Error(`the stream ended before a tick: ${received}`);
      received += decoder.decode(chunk.value);
    }
    leaving.abort();
    const [run] = await suite.client.runs.list(thread.thread_id);
    if (!run) throw new Error('no run');
    await suite.client.runs.join(thread.thread_id, run.run_id);
    expect((await suite.client.runs.get(thread.thread_id, run.run_id)).status).toBe('interrupted');
  });

  it("sends Berth the run's body as the middleware rewrote it", async () => {
    const client = new Client({
      apiUrl: suite.runtime.url,
      apiKey: suite.runtime.apiKey,
      defaultHeaders: { 'x-greeting-suffix': ', rewritten' },
    });
    const thread = await client.threads.create();
    expect(await client.runs.wait(thread.thread_id, 'configured', { input: {} })).toEqual({
      text: 'hello from env, rewritten',
    });
    const [run] = await client.runs.list(thread.thread_id);
    expect((run as unknown as { kwargs: unknown }).kwargs).toMatchObject({
      config: { configurable: { suffix: ', rewritten' } },
    });
  });

  it("answers an unknown path with 404 JSON, not with the app's catch-all not-found", async () => {
    const unknown = await call('/does/not/exist');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: expect.any(String) });
    expect(unknown.headers.get('x-app-middleware')).toBe('true');
    const thrown = await call('/custom/error');
    expect(thrown.status).toBe(400);
  });

  it('answers a throwing middleware with JSON 500 for that request only', async () => {
    const failed = await call('/info', { headers: { 'x-middleware-throws': 'yes' } });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({
      detail: expect.stringContaining('the middleware broke'),
    });
    expect((await call('/info')).status).toBe(200);
  });

  it('still asks for the API key, and a forged in-process token opens nothing', async () => {
    const unknownAssistant = '/assistants/00000000-0000-4000-8000-000000000000';
    expect((await fetch(`${suite.runtime.url}${unknownAssistant}`)).status).toBe(401);
    expect((await fetch(`${suite.runtime.url}/custom/client`)).status).toBe(401);
    const forged = await fetch(`${suite.runtime.url}/threads/search`, {
      method: 'POST',
      headers: { 'x-berth-in-process': 'forged', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
  });

  it('serves `new Client()` without a URL, in a route and in a graph node, in process', async () => {
    const routed = await call('/custom/client');
    expect(routed.status).toBe(200);
    expect(await routed.json()).toEqual({ result: { text: 'hello from env' } });
    expect(await suite.client.runs.wait(null, 'asks_server', { input: {} })).toEqual({
      text: 'the server has greeter',
    });
  });

  it("delivers a relative webhook to the application's own route", async () => {
    const thread = await suite.client.threads.create();
    const run = await suite.client.runs.create(thread.thread_id, 'greeter', {
      input: {},
      webhook: '/custom/webhook',
    });
    await suite.client.runs.join(thread.thread_id, run.run_id);
    const received = await call(`/custom/webhook/${run.run_id}`);
    expect(await received.json()).toMatchObject({
      run_id: run.run_id,
      thread_id: thread.thread_id,
      status: 'success',
      values: { text: 'hello from env' },
    });
  });

  it('refuses a webhook that is neither a URL nor a path of this server', async () => {
    const refused = await postJson('/runs', {
      assistant_id: 'greeter',
      input: {},
      webhook: '//elsewhere.example/hook',
    });
    expect(refused.status).toBe(422);
  });
});

describe("an application's Hono app with the application's own authentication", () => {
  const suite = runtimeSuite(
    'runtime_auth_http_app',
    { maxRetries: 0 },
    {
      graphConfig: AUTH_HTTP_APP,
    },
  );
  const as = (user: string): Client =>
    new Client({
      apiUrl: suite.runtime.url,
      defaultHeaders: { authorization: `Bearer user-${user}` },
      callerOptions: { maxRetries: 0 },
    });
  const get = (path: string, user?: string): Promise<Response> =>
    fetch(`${suite.runtime.url}${path}`, {
      headers: user ? { authorization: `Bearer user-${user}` } : {},
    });

  it('authenticates before the middleware runs: a refused request never reaches it', async () => {
    // Not /info: it answers anyone, as the JS server's does.
    const refused = await get('/threads/search?interrupt');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-app-middleware')).toBeNull();
    expect(await (await get('/threads/search?interrupt', 'alice')).json()).toEqual({
      status: 'interrupted',
    });
  });

  it("gives Berth's route the caller's identity through the middleware", async () => {
    const thread = await as('alice').threads.create();
    const own = await get(`/threads/${thread.thread_id}`, 'alice');
    expect(own.status).toBe(200);
    expect(own.headers.get('x-app-middleware')).toBe('true');
    expect((await get(`/threads/${thread.thread_id}`, 'bob')).status).toBe(404);
  });

  it("lets `new Client()` act for whom the application's authenticate says", async () => {
    const thread = await as('carol').threads.create();
    const carol = await get('/custom/my-threads', 'carol');
    expect(await carol.json()).toEqual({ threads: [thread.thread_id] });
    const dave = await get('/custom/my-threads', 'dave');
    expect(await dave.json()).toEqual({ threads: [] });
  });
});
