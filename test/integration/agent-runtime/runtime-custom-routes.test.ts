import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { runtimeSuite } from '../../support/runtime-suite.js';

const CUSTOM_ROUTES = resolve('test/fixtures/compat-app/custom-routes.json');

describe("an application's own routes (http.app), http.disable_* and http.cors", () => {
  const suite = runtimeSuite('runtime_custom_routes', undefined, { graphConfig: CUSTOM_ROUTES });

  const call = (path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${suite.runtime.url}${path}`, {
      ...init,
      headers: { 'x-api-key': suite.runtime.apiKey, ...(init.headers as Record<string, string>) },
    });

  it("serves the application's routes beside Berth's, body and headers untouched", async () => {
    expect(await (await call('/hello')).json()).toEqual({ hello: 'world' });
    expect(await (await call('/plan')).json()).toEqual({ plan: 'free' });
    expect(await (await call('/plan', { headers: { 'x-plan': 'gold' } })).json()).toEqual({
      plan: 'gold',
    });
    const echoed = await call('/echo', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'plain text, not JSON',
    });
    expect(echoed.status).toBe(201);
    expect(echoed.headers.get('x-echoed')).toBe('yes');
    expect(await echoed.text()).toBe('text/plain: plain text, not JSON');
    expect(await suite.client.runs.wait(null, 'greeter', { input: {} })).toEqual({
      text: 'hello from env',
    });
  });

  it("lets the application's route shadow Berth's, and keeps the API key on it", async () => {
    expect(await (await call('/info')).json()).toEqual({ shadowed: true });
    const anonymous = await fetch(`${suite.runtime.url}/hello`);
    expect(anonymous.status).toBe(401);
  });

  it('hands a disabled group to the application, and answers 404 where it has no route', async () => {
    expect(await (await call('/threads/abc')).json()).toEqual({ thread_from_app: 'abc' });
    const created = await call('/threads', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(created.status).toBe(404);
    // The runs of a thread are their own group: still Berth's.
    expect((await call('/threads/abc/runs')).status).toBe(404);
    expect(await (await call('/threads/abc/runs')).json()).toEqual({ detail: expect.any(String) });
  });

  it('answers a route that throws with JSON 500, for that request only', async () => {
    const response = await call('/fails');
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ detail: expect.stringContaining('the route failed') });
    expect(await (await call('/hello')).json()).toEqual({ hello: 'world' });
  });

  it('answers preflights for the allowed origin only, before the API key', async () => {
    const preflight = await fetch(`${suite.runtime.url}/threads/search`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://chat.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://chat.example');
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('x-api-key, content-type');
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    const refused = await fetch(`${suite.runtime.url}/threads/search`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(refused.status).toBe(403);
    const simple = await call('/hello', { headers: { origin: 'https://chat.example' } });
    expect(simple.headers.get('access-control-allow-origin')).toBe('https://chat.example');
    expect(simple.headers.get('access-control-expose-headers')).toContain('content-location');
  });

  it('warns once about each key it does not apply, naming it', () => {
    const output = suite.runtime.output();
    expect(output).toContain('"colour" is not a key Berth knows: it is ignored');
    expect(output).toContain('"dockerfile_lines" shapes a container image');
    expect(output).toContain('"http.middleware_order" is not supported by Berth yet');
    expect(output.match(/"colour" is not a key/g)).toHaveLength(1);
  });
});

describe('CORS without an http.cors section', () => {
  const suite = runtimeSuite('runtime_default_cors');

  it('lets any origin call, streams included, as the JS server does', async () => {
    const preflight = await fetch(`${suite.runtime.url}/runs/stream`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const stream = await fetch(`${suite.runtime.url}/runs/stream`, {
      method: 'POST',
      headers: {
        origin: 'http://localhost:3000',
        'x-api-key': suite.runtime.apiKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ assistant_id: 'agent', input: { messages: [] } }),
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expect(stream.headers.get('access-control-allow-origin')).toBe('*');
    await stream.text();
  });
});
