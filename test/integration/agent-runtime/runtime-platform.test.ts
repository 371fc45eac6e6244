import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';

const PROBE_GRAPH_CONFIG = resolve('test/fixtures/platform-probe/langgraph.json');
const KEY = 'tenant-key-7f3a9c0e5b';
const OTHER_KEY = 'tenant-key-second-1d2e';
const TOKEN = 'tracing-token-b81c44e0aa';
const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

interface RunTrace {
  run_id: string;
  thread_id: string | null;
  assistant_id: string;
  status: string;
  created_at: string;
  started_at: string | null;
  finished_at: string;
  attempt: number;
}

interface TracePost {
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly body: { runs: RunTrace[] };
}

/** The control plane's side of run tracing: a plain HTTP server that keeps what it is sent. */
class TracingEndpoint {
  readonly posts: TracePost[] = [];
  private waiters: { runIds: readonly string[]; resolve: () => void }[] = [];
  private readonly server: Server = createServer(
    (request, response) => void this.handle(request, response),
  );

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/internal/runs`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((done) => this.server.close(done));
  }

  traces(): RunTrace[] {
    return this.posts.flatMap((post) => post.body.runs);
  }

  trace(runId: string): RunTrace | undefined {
    return this.traces().find((trace) => trace.run_id === runId);
  }

  /** Resolves when every one of the runs has been reported. */
  reported(runIds: readonly string[]): Promise<void> {
    if (this.hasAll(runIds)) return Promise.resolve();
    return new Promise((done) => this.waiters.push({ runIds, resolve: done }));
  }

  private hasAll(runIds: readonly string[]): boolean {
    const seen = new Set(this.traces().map((trace) => trace.run_id));
    return runIds.every((id) => seen.has(id));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    this.posts.push({
      authorization: request.headers.authorization,
      contentType: request.headers['content-type'],
      body: JSON.parse(Buffer.concat(chunks).toString()) as { runs: RunTrace[] },
    });
    this.waiters = this.waiters.filter((waiter) => {
      if (!this.hasAll(waiter.runIds)) return true;
      waiter.resolve();
      return false;
    });
    response.writeHead(204).end();
  }
}

interface Answer {
  readonly status: number;
  readonly json: unknown;
  readonly location: string | null;
}

describe('the runtime as a deployment process: keys by digest, exit with parent, run tracing', () => {
  let database: TestDatabase;
  let tracing: TracingEndpoint;
  let runtime: RuntimeProcess;
  let stopped = false;

  async function call(
    method: string,
    path: string,
    body?: unknown,
    key: string | null = KEY,
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (key !== null) headers['x-api-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${runtime.url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      json: text ? (JSON.parse(text) as unknown) : undefined,
      location: response.headers.get('content-location'),
    };
  }

  /** Runs the probe graph to its end; the run id comes from Content-Location. */
  async function waitRun(
    threadId: string | null,
    input: Record<string, unknown>,
  ): Promise<{ runId: string; values: Record<string, unknown> }> {
    const path = threadId === null ? '/runs/wait' : `/threads/${threadId}/runs/wait`;
    const answer = await call('POST', path, { assistant_id: 'probe', input });
    expect(answer.status).toBe(200);
    const runId = answer.location?.split('/').at(-1) ?? '';
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    return { runId, values: answer.json as Record<string, unknown> };
  }

  async function newThread(): Promise<string> {
    const answer = await call('POST', '/threads', {});
    expect(answer.status).toBe(200);
    return (answer.json as { thread_id: string }).thread_id;
  }

  beforeAll(async () => {
    database = await createTestDatabase('runtime_platform');
    tracing = new TracingEndpoint();
    const endpoint = await tracing.start();
    runtime = await startRuntime({
      databaseUrl: database.url,
      graphConfig: PROBE_GRAPH_CONFIG,
      apiKey: KEY,
      env: {
        // Only the digests: the runtime never holds the keys in clear.
        BERTH_API_KEY: '',
        BERTH_API_KEY_SHA256: `${sha256(OTHER_KEY)},${sha256(KEY)}`,
        BERTH_TRACING_ENDPOINT: endpoint,
        BERTH_TRACING_TOKEN: TOKEN,
      },
    });
  }, 90_000);

  afterAll(async () => {
    if (!stopped) await runtime.stop();
    await tracing.stop();
    await database.drop();
  });

  describe('BERTH_API_KEY_SHA256', () => {
    it('accepts every key whose digest is listed, and refuses others with 401', async () => {
      expect((await call('POST', '/assistants/search', {})).status).toBe(200);
      expect((await call('POST', '/assistants/search', {}, OTHER_KEY)).status).toBe(200);
      const wrong = await call('POST', '/assistants/search', {}, `${KEY}x`);
      expect(wrong).toMatchObject({ status: 401, json: { detail: 'Invalid API key' } });
      // The digest itself is not a key.
      expect((await call('POST', '/assistants/search', {}, sha256(KEY))).status).toBe(401);
      expect((await call('POST', '/assistants/search', {}, null)).status).toBe(401);
      expect((await call('GET', '/ok', undefined, null)).status).toBe(200);
    });

    it('keeps the keys, their digests and the tracing token out of what graphs can see', async () => {
      const secrets = [KEY, OTHER_KEY, sha256(KEY), sha256(OTHER_KEY), TOKEN];
      const { values } = await waitRun(null, { mode: 'ok', secrets });
      for (const names of [values.berth_env, values.berth_env_at_load]) {
        expect(names).toEqual(
          expect.arrayContaining(['BERTH_RUNTIME_PORT', 'BERTH_TRACING_ENDPOINT']),
        );
        expect(names).not.toContain('BERTH_API_KEY');
        expect(names).not.toContain('BERTH_API_KEY_SHA256');
        expect(names).not.toContain('BERTH_TRACING_TOKEN');
      }
      expect(values.secrets_seen).toBe(0);
    });
  });

  describe('run tracing', () => {
    it('reports every finished run, whichever way it ended, with the bearer token', async () => {
      const [assistant] = (await call('POST', '/assistants/search', { graph_id: 'probe' }))
        .json as { assistant_id: string }[];
      const assistantId = assistant?.assistant_id ?? '';
      expect(assistantId).toMatch(/^[0-9a-f-]{36}$/);

      const threadId = await newThread();
      const succeeded = await waitRun(threadId, { mode: 'ok' });
      const failed = await waitRun(threadId, { mode: 'fail' });
      expect(failed.values).toMatchObject({
        __error__: { message: expect.stringContaining('asked to fail') as unknown },
      });
      const stateless = await waitRun(null, { mode: 'ok' });

      // A slow run holds a thread; a second one waits behind it and is cancelled while pending
      // (recorded by the API), then the slow one is cancelled while running (by its worker).
      const busyThread = await newThread();
      const slow = await call('POST', `/threads/${busyThread}/runs`, {
        assistant_id: 'probe',
        input: { mode: 'slow' },
      });
      const slowId = (slow.json as { run_id: string }).run_id;
      const queued = await call('POST', `/threads/${busyThread}/runs`, {
        assistant_id: 'probe',
        input: { mode: 'ok' },
        multitask_strategy: 'enqueue',
      });
      const queuedId = (queued.json as { run_id: string }).run_id;
      const cancel = (runId: string): Promise<Answer> =>
        call('POST', `/threads/${busyThread}/runs/${runId}/cancel?action=interrupt&wait=true`);
      expect((await cancel(queuedId)).status).toBe(204);
      expect((await cancel(slowId)).status).toBe(204);

      const runIds = [succeeded.runId, failed.runId, stateless.runId, queuedId, slowId];
      await tracing.reported(runIds);

      const expected = {
        [succeeded.runId]: { thread_id: threadId, status: 'success', attempt: 1 },
        [failed.runId]: { thread_id: threadId, status: 'error', attempt: 1 },
        [stateless.runId]: { thread_id: null, status: 'success', attempt: 1 },
        [queuedId]: { thread_id: busyThread, status: 'interrupted', attempt: 0, started_at: null },
        [slowId]: { thread_id: busyThread, status: 'interrupted', attempt: 1 },
      };
      for (const runId of runIds) {
        const trace = tracing.trace(runId);
        expect(trace).toMatchObject({
          run_id: runId,
          assistant_id: assistantId,
          ...expected[runId],
        });
        expect(Object.keys(trace ?? {}).sort()).toEqual(
          [
            'assistant_id',
            'attempt',
            'created_at',
            'finished_at',
            'run_id',
            'started_at',
            'status',
            'thread_id',
          ].sort(),
        );
        const created = Date.parse(trace?.created_at ?? '');
        const finished = Date.parse(trace?.finished_at ?? '');
        expect(new Date(created).toISOString()).toBe(trace?.created_at);
        expect(new Date(finished).toISOString()).toBe(trace?.finished_at);
        if (trace?.started_at !== null) {
          const started = Date.parse(trace?.started_at ?? '');
          expect(new Date(started).toISOString()).toBe(trace?.started_at);
          expect(created).toBeLessThanOrEqual(started);
          expect(started).toBeLessThanOrEqual(finished);
        }
        expect(created).toBeLessThanOrEqual(finished);
      }
      // The runs on one thread, in the order they ran.
      expect(Date.parse(tracing.trace(succeeded.runId)?.finished_at ?? '')).toBeLessThanOrEqual(
        Date.parse(tracing.trace(failed.runId)?.created_at ?? ''),
      );
      // Each run once; every POST a {"runs": [...]} JSON body with the bearer token.
      const reported = tracing.traces().map((trace) => trace.run_id);
      expect(new Set(reported).size).toBe(reported.length);
      for (const post of tracing.posts) {
        expect(post.authorization).toBe(`Bearer ${TOKEN}`);
        expect(post.contentType).toBe('application/json');
        expect(Object.keys(post.body)).toEqual(['runs']);
        expect(post.body.runs.length).toBeGreaterThan(0);
      }
      expect(runtime.output()).not.toContain(TOKEN);
    });

    it('sends what it has when the runtime stops', async () => {
      const { runId } = await waitRun(null, { mode: 'ok' });
      await runtime.stop();
      stopped = true;
      expect(tracing.trace(runId)).toMatchObject({ run_id: runId, status: 'success' });
      expect(runtime.output()).not.toContain(TOKEN);
    });
  });

  describe('BERTH_EXIT_WITH_PARENT', () => {
    it('stops gracefully, with status 0, when its stdin pipe closes', async () => {
      const child = await startRuntime({
        databaseUrl: database.url,
        graphConfig: PROBE_GRAPH_CONFIG,
        stdin: 'pipe',
        env: { BERTH_EXIT_WITH_PARENT: 'true', BERTH_RUN_WORKERS: 'false' },
      });
      const exited = once(child.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      // What the pipe does when the parent dies, even by SIGKILL: its end closes.
      child.child.stdin?.destroy();
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(child.output()).toContain('stdin closed');
    });

    it('stops with status 0 when every pipe to its parent closes, as when the parent is killed', async () => {
      const child = await startRuntime({
        databaseUrl: database.url,
        graphConfig: PROBE_GRAPH_CONFIG,
        stdin: 'pipe',
        env: { BERTH_EXIT_WITH_PARENT: 'true', BERTH_RUN_WORKERS: 'false' },
      });
      const exited = once(child.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      // Its output goes nowhere now: writing it must not crash the graceful stop.
      child.child.stdout?.destroy();
      child.child.stderr?.destroy();
      child.child.stdin?.destroy();
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    });
  });
});
