import { describe, expect, it, jest } from '@jest/globals';
import { Scrape } from '../../support/prometheus.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

jest.setTimeout(60_000);

const RUNS = 3;

describe('GET /metrics on the runtime', () => {
  const suite = runtimeSuite('metrics');
  const scrape = () => Scrape.of(suite.runtime.url, suite.runtime.apiKey);

  it('needs the API key by default and answers the Prometheus text format', async () => {
    const anonymous = await fetch(`${suite.runtime.url}/metrics`);
    expect(anonymous.status).toBe(401);
    const response = await fetch(`${suite.runtime.url}/metrics`, {
      headers: { 'x-api-key': suite.runtime.apiKey },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const metrics = new Scrape(await response.text());
    for (const name of [
      'berth_http_requests_total',
      'berth_http_request_duration_seconds',
      'berth_runs_finished_total',
      'berth_run_duration_seconds',
      'berth_run_queue_wait_seconds',
      'berth_run_queue_depth',
      'berth_event_store_append_duration_seconds',
      'berth_events_appended_total',
      'berth_projection_lag_events',
      'berth_projection_lag_milliseconds',
      'berth_sse_connections_open',
      'process_cpu_seconds_total',
    ]) {
      expect({ name, present: metrics.has(name) }).toEqual({ name, present: true });
    }
    expect(
      metrics.labelsOf('berth_projection_lag_events').map((labels) => labels.projection),
    ).toEqual(expect.arrayContaining(['assistants', 'threads', 'runs']));
  });

  it('moves the run, request and event counters by what was done between two scrapes', async () => {
    const { client } = suite;
    const thread = await client.threads.create();
    const before = await scrape();
    for (let index = 0; index < RUNS; index += 1) {
      await client.runs.wait(thread.thread_id, 'agent', {
        input: { messages: [{ role: 'user', content: `weather ${index}?` }] },
      });
    }
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      after.value(name, labels) - before.value(name, labels);
    const observed = (name: string, labels: Record<string, string> = {}) =>
      after.count(name, labels) - before.count(name, labels);

    expect(moved('berth_runs_finished_total', { status: 'success' })).toBe(RUNS);
    expect(moved('berth_runs_started_total', { retry: 'false' })).toBe(RUNS);
    expect(observed('berth_run_duration_seconds', { status: 'success' })).toBe(RUNS);
    expect(observed('berth_run_queue_wait_seconds')).toBe(RUNS);
    const waitRoute = {
      method: 'POST',
      route: '/threads/:threadId/runs/wait',
      status: '200',
    };
    expect(moved('berth_http_requests_total', waitRoute)).toBe(RUNS);
    expect(observed('berth_http_request_duration_seconds', waitRoute)).toBe(RUNS);
    // Each run appends at least its creation, its start, its chunks and its end.
    expect(moved('berth_events_appended_total')).toBeGreaterThanOrEqual(RUNS * 4);
    expect(observed('berth_event_store_append_duration_seconds')).toBeGreaterThanOrEqual(RUNS * 2);
    expect(after.value('berth_run_queue_depth', { state: 'pending' })).toBe(0);
    expect(after.value('berth_run_queue_depth', { state: 'running' })).toBe(0);
    // The scrape before this one was counted too, under its route pattern, not its URL.
    expect(
      moved('berth_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }),
    ).toBe(1);
  });

  it('counts the Server-Sent Events streams open while they are open', async () => {
    const thread = await suite.client.threads.create();
    const stream = new AbortController();
    const response = await fetch(`${suite.runtime.url}/threads/${thread.thread_id}/stream`, {
      headers: { 'x-api-key': suite.runtime.apiKey },
      signal: stream.signal,
    });
    expect(response.status).toBe(200);
    expect((await scrape()).value('berth_sse_connections_open')).toBe(1);
    stream.abort();
    await response.body?.cancel().catch(() => undefined);
    let open = 1;
    for (const deadline = Date.now() + 5_000; open !== 0 && Date.now() < deadline;) {
      open = (await scrape()).value('berth_sse_connections_open');
    }
    expect(open).toBe(0);
  });
});

describe('GET /metrics when the operator opens it', () => {
  const suite = runtimeSuite('metrics-public', undefined, {
    env: { BERTH_METRICS_PUBLIC: 'true' },
  });

  it('answers without a key, and nothing else does', async () => {
    expect((await fetch(`${suite.runtime.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${suite.runtime.url}/threads/search`, { method: 'POST' })).status).toBe(
      401,
    );
  });
});
