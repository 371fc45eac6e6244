import { describe, expect, it } from '@jest/globals';
import { routeGroupOf } from '../http/custom-routes.hook.js';
import {
  parseAuthSection,
  parseCheckpointerSection,
  parseHttpSection,
} from './graph-config-sections.js';
import { unreadKeyWarnings } from './graph-config-keys.js';

const fail = (problem: string): never => {
  throw new Error(problem);
};

describe('the http section of langgraph.json', () => {
  it('reads the app, the disabled groups and CORS, warning about what it does not apply', () => {
    const warnings: string[] = [];
    const http = parseHttpSection(
      {
        app: './src/app.ts:app',
        disable_threads: true,
        disable_runs: false,
        disable_mcp: true,
        disable_a2a: true,
        disable_ui: true,
        cors: { allow_origins: ['https://a.example'], max_age: 60 },
        configurable_headers: { includes: [], excludes: [] },
        shiny: 1,
      },
      '/srv/app',
      fail,
      (warning) => warnings.push(warning),
    );
    expect(http?.app).toEqual({ file: '/srv/app/src/app.ts', exportName: 'app' });
    expect([...(http?.disabled ?? [])]).toEqual(['threads', 'mcp', 'a2a', 'ui']);
    expect(http?.cors).toEqual({ allowOrigins: ['https://a.example'], maxAge: 60 });
    expect(warnings).toEqual([
      '"http.configurable_headers" is not supported by Berth yet: it is ignored',
      '"http.shiny" is not a key Berth knows: it is ignored',
    ]);
  });

  it('takes the default export when the app names none', () => {
    expect(parseHttpSection({ app: 'app.mjs' }, '/a', fail, () => undefined)?.app).toEqual({
      file: '/a/app.mjs',
      exportName: 'default',
    });
  });

  it.each([
    [{ disable_threads: 'yes' }, /disable_threads" must be true or false/],
    [{ app: 3 }, /"http.app" must be/],
    [{ cors: { allow_origins: 'https://a.example' } }, /allow_origins" must be an array/],
    [{ cors: { allow_origin_regex: '(' } }, /not a valid regular expression/],
    [{ cors: { max_age: -1 } }, /max_age" must be a whole number/],
    ['on', /"http" must be an object/],
  ])('refuses %j', (raw, problem) => {
    expect(() => parseHttpSection(raw, '/a', fail, () => undefined)).toThrow(problem);
  });

  it('warns about each top-level key it does not read, by kind', () => {
    expect(
      unreadKeyWarnings({
        graphs: {},
        env: {},
        $schema: 'x',
        base_image: 'i',
        ui: {},
        webhooks: {},
        foo: 1,
      }),
    ).toEqual([
      '"base_image" shapes a container image, which Berth does not build: it is ignored',
      '"webhooks": the webhooks section is not applied',
      '"foo" is not a key Berth knows: it is ignored',
    ]);
  });
});

describe('the auth section of langgraph.json', () => {
  it('reads auth.path, warning about the OpenAPI and cache settings it does not apply', () => {
    const warnings: string[] = [];
    expect(
      parseAuthSection(
        { path: './src/auth.ts:auth', disable_studio_auth: true, openapi: {}, cache: {} },
        '/srv/app',
        fail,
        (warning) => warnings.push(warning),
      ),
    ).toEqual({ file: '/srv/app/src/auth.ts', exportName: 'auth' });
    expect(warnings).toEqual([
      '"auth.openapi" is not applied by Berth: it is ignored',
      '"auth.cache" is not applied by Berth: it is ignored',
    ]);
    expect(parseAuthSection({}, '/a', fail, () => undefined)).toBeUndefined();
    expect(() => parseAuthSection({ path: 7 }, '/a', fail, () => undefined)).toThrow(/auth.path/);
  });
});

describe('the checkpointer section of langgraph.json', () => {
  it('reads the default TTL, and says the sweep interval is not applied', () => {
    const warnings: string[] = [];
    expect(
      parseCheckpointerSection(
        { ttl: { default_ttl: 43200, strategy: 'delete', sweep_interval_minutes: 10 } },
        fail,
        (warning) => warnings.push(warning),
      ),
    ).toEqual({ defaultTtlMinutes: 43200 });
    expect(warnings).toEqual([expect.stringMatching(/sweep_interval_minutes" is not applied/)]);
    expect(parseCheckpointerSection({}, fail, () => undefined)).toEqual({});
  });

  it.each([
    [{ ttl: { default_ttl: 0 } }, /default_ttl" must be minutes/],
    [{ ttl: { default_ttl: 'a day' } }, /default_ttl" must be minutes/],
    [{ ttl: { strategy: 'archive' } }, /strategy" must be "delete"/],
    [{ ttl: 5 }, /"checkpointer.ttl" must be an object/],
  ])('refuses %j', (raw, problem) => {
    expect(() => parseCheckpointerSection(raw, fail, () => undefined)).toThrow(problem);
  });
});

describe('routeGroupOf', () => {
  it.each([
    ['/assistants/search', 'assistants'],
    ['/threads', 'threads'],
    ['/threads/t1/state', 'threads'],
    ['/threads/t1/runs', 'runs'],
    ['/threads/t1/runs/r1/stream', 'runs'],
    ['/runs/batch', 'runs'],
    ['/store/items', 'store'],
    ['/info', 'meta'],
    ['/a2a/asst-1', 'a2a'],
    ['/a2a/asst-1/.well-known/agent-card.json', 'a2a'],
    ['/.well-known/agent-card.json', 'a2a'],
    ['/mcp', 'mcp'],
    ['/mcpx', undefined],
    ['/ui/agent', 'ui'],
    ['/ui/agent/entrypoint.js', 'ui'],
    ['/uix', undefined],
    ['/ok', undefined],
    ['/threadsafe', undefined],
    ['/hello', undefined],
  ])('%s belongs to %s', (path, group) => {
    expect(routeGroupOf(path)).toBe(group);
  });
});
