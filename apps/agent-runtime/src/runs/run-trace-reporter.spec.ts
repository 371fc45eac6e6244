import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { RunTraceReporter, runTraceOf, type RunTrace } from './run-trace-reporter.js';
import type { RunCreatedData, RunFinishedData } from '../run-records/run.events.js';

interface Received {
  readonly at: number;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly runs: RunTrace[];
}

/** A tracing endpoint on a real port: answers each POST with the status `answer` gives. */
class Endpoint {
  readonly received: Received[] = [];
  answer: (request: number) => number = () => 204;
  private requests = 0;
  private waiters: { count: number; resolve: () => void }[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((request, response) => void this.handle(request, response));
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/runs`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  get runIds(): string[] {
    return this.received.flatMap((post) => post.runs.map((run) => run.run_id));
  }

  /** Resolves when `count` runs were accepted. */
  accepted(count: number): Promise<void> {
    if (this.runIds.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    this.requests += 1;
    const status = this.answer(this.requests);
    if (status < 300) {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { runs: RunTrace[] };
      this.received.push({
        at: Date.now(),
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        runs: body.runs,
      });
      const total = this.runIds.length;
      this.waiters = this.waiters.filter((waiter) => {
        if (total < waiter.count) return true;
        waiter.resolve();
        return false;
      });
    }
    response.writeHead(status).end();
  }
}

function trace(n: number): RunTrace {
  return {
    run_id: `run-${n}`,
    thread_id: `thread-${n}`,
    assistant_id: 'assistant',
    status: 'success',
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    finished_at: '2026-01-01T00:00:02.000Z',
    attempt: 1,
  };
}

const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from }, (_, i) => from + i);

describe('RunTraceReporter', () => {
  let endpoint: Endpoint;
  let url: string;
  let warnings: string[];
  let reporter: RunTraceReporter | undefined;

  const makeReporter = (
    options: Partial<ConstructorParameters<typeof RunTraceReporter>[0]> = {},
  ) => {
    reporter = new RunTraceReporter({
      endpoint: url,
      token: 'secret-token-123',
      retryBaseMs: 20,
      retryMaxMs: 80,
      logger: { warn: (message) => warnings.push(message) },
      ...options,
    });
    return reporter;
  };

  beforeEach(async () => {
    endpoint = new Endpoint();
    url = await endpoint.start();
    warnings = [];
  });

  afterEach(async () => {
    await reporter?.close(100);
    reporter = undefined;
    await endpoint.stop();
  });

  it('POSTs finished runs as {"runs": [...]} with the bearer token, after a short delay', async () => {
    const reporter = makeReporter({ flushDelayMs: 50 });
    const start = Date.now();
    reporter.report(trace(1));
    reporter.report(trace(2));
    await endpoint.accepted(2);
    expect(endpoint.received).toHaveLength(1);
    const [post] = endpoint.received;
    expect(post?.authorization).toBe('Bearer secret-token-123');
    expect(post?.contentType).toBe('application/json');
    expect(post?.runs).toEqual([trace(1), trace(2)]);
    expect((post?.at ?? 0) - start).toBeGreaterThanOrEqual(45);
  });

  it('sends a full batch at once, in order, and one POST at a time', async () => {
    const reporter = makeReporter({ flushDelayMs: 60_000, batchSize: 10 });
    for (const n of range(0, 25)) reporter.report(trace(n));
    await endpoint.accepted(20);
    expect(endpoint.received.map((post) => post.runs.length)).toEqual([10, 10]);
    // The remaining 5 wait for the delay, or for close.
    await reporter.close();
    expect(endpoint.runIds).toEqual(range(0, 25).map((n) => `run-${n}`));
    expect(endpoint.received.map((post) => post.runs.length)).toEqual([10, 10, 5]);
  });

  it('retries a failed POST with back-off, keeping the order, and never logs the token', async () => {
    endpoint.answer = (request) => (request <= 3 ? 503 : 200);
    const reporter = makeReporter({ flushDelayMs: 10 });
    reporter.report(trace(1));
    reporter.report(trace(2));
    await endpoint.accepted(2);
    reporter.report(trace(3));
    await endpoint.accepted(3);
    expect(endpoint.runIds).toEqual(['run-1', 'run-2', 'run-3']);
    expect(warnings.some((warning) => warning.includes('HTTP 503'))).toBe(true);
    expect(warnings.join('\n')).not.toContain('secret-token-123');
  });

  it('retries when the endpoint cannot be reached at all', async () => {
    const closed = new Endpoint();
    const deadUrl = await closed.start();
    await closed.stop();
    const reporter = makeReporter({ endpoint: deadUrl, flushDelayMs: 10 });
    reporter.report(trace(1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reporter.pendingCount).toBe(1);
    expect(warnings[0]).toMatch(/failed .*retrying/);
    expect(warnings.join('\n')).not.toContain('secret-token-123');
  });

  it('drops a batch the endpoint refuses as malformed, and goes on', async () => {
    endpoint.answer = (request) => (request === 1 ? 400 : 200);
    const reporter = makeReporter({ flushDelayMs: 10 });
    reporter.report(trace(1));
    await new Promise((resolve) => setTimeout(resolve, 60));
    reporter.report(trace(2));
    await endpoint.accepted(1);
    expect(endpoint.runIds).toEqual(['run-2']);
    expect(warnings.some((warning) => /refused 1 finished runs with HTTP 400/.test(warning))).toBe(
      true,
    );
  });

  it('keeps at most maxPending runs, dropping the oldest with one warning', async () => {
    let failing = true;
    endpoint.answer = () => (failing ? 500 : 200);
    const reporter = makeReporter({ flushDelayMs: 10, maxPending: 50, batchSize: 100 });
    for (const n of range(0, 200)) reporter.report(trace(n));
    expect(reporter.pendingCount).toBe(50);
    const dropWarnings = warnings.filter((warning) => warning.includes('dropping the oldest'));
    expect(dropWarnings).toHaveLength(1);
    failing = false;
    await endpoint.accepted(50);
    expect(endpoint.runIds).toEqual(range(150, 200).map((n) => `run-${n}`));
  });

  it('keeps the newest when runs are dropped while a POST is in flight', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sent: string[][] = [];
    // Every POST is held until released, then accepted.
    const slow = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { runs: RunTrace[] };
        void gate.then(() => {
          sent.push(body.runs.map((run) => run.run_id));
          response.writeHead(200).end();
        });
      });
    });
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    const reporter = makeReporter({
      endpoint: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/runs`,
      flushDelayMs: 1,
      maxPending: 5,
    });
    reporter.report(trace(0));
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const n of range(1, 10)) reporter.report(trace(n));
    expect(reporter.pendingCount).toBe(5);
    release();
    await reporter.close(2_000);
    expect(sent).toEqual([['run-0'], range(5, 10).map((n) => `run-${n}`)]);
    expect(warnings.filter((warning) => warning.includes('dropping the oldest'))).toHaveLength(1);
    slow.closeAllConnections();
    await new Promise((resolve) => slow.close(resolve));
  });

  it('never blocks nor throws when reporting, even with the endpoint down', () => {
    const reporter = makeReporter({ endpoint: 'http://127.0.0.1:9/runs' });
    expect(() => {
      for (const n of range(0, 1000)) reporter.report(trace(n));
    }).not.toThrow();
  });

  it('sends what is pending on close, waiting a bounded time', async () => {
    const reporter = makeReporter({ flushDelayMs: 60_000 });
    reporter.report(trace(1));
    reporter.report(trace(2));
    await reporter.close();
    expect(endpoint.runIds).toEqual(['run-1', 'run-2']);
    reporter.report(trace(3));
    expect(reporter.pendingCount).toBe(0);
  });

  it('gives up on close after its timeout when the endpoint keeps failing', async () => {
    endpoint.answer = () => 503;
    const reporter = makeReporter({ flushDelayMs: 60_000 });
    reporter.report(trace(1));
    const start = Date.now();
    await reporter.close(300);
    const took = Date.now() - start;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(2_000);
    expect(warnings.some((warning) => /1 finished runs were not reported/.test(warning))).toBe(
      true,
    );
  });

  it('gives up on close after its timeout when the endpoint hangs', async () => {
    const hanging = createServer((request) => {
      request.resume();
    });
    hanging.listen(0, '127.0.0.1');
    await once(hanging, 'listening');
    const reporter = makeReporter({
      endpoint: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/runs`,
    });
    reporter.report(trace(1));
    const start = Date.now();
    await reporter.close(200);
    expect(Date.now() - start).toBeLessThan(1_500);
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
  });
});

describe('runTraceOf', () => {
  const created = {
    run_id: 'r',
    thread_id: 't',
    assistant_id: 'a',
    created_at: '2026-01-01T00:00:00.000Z',
    kwargs: { temporary: false },
  } as unknown as RunCreatedData;
  const finished = {
    status: 'error',
    attempt: 2,
    finished_at: '2026-01-01T00:00:03.000Z',
  } as unknown as RunFinishedData;

  it('makes the record of a finished run', () => {
    expect(runTraceOf({ created, finished, startedAt: '2026-01-01T00:00:01.000Z' })).toEqual({
      run_id: 'r',
      thread_id: 't',
      assistant_id: 'a',
      status: 'error',
      created_at: '2026-01-01T00:00:00.000Z',
      started_at: '2026-01-01T00:00:01.000Z',
      finished_at: '2026-01-01T00:00:03.000Z',
      attempt: 2,
    });
  });

  it('has no thread for a stateless run', () => {
    const stateless = { ...created, kwargs: { temporary: true } } as unknown as RunCreatedData;
    expect(runTraceOf({ created: stateless, finished, startedAt: null })).toMatchObject({
      thread_id: null,
      started_at: null,
    });
  });
});
