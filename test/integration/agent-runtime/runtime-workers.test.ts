import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Client, type Run } from '@langchain/langgraph-sdk';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';
import { readSse, type SseEvent } from '../../support/sse.js';
import { within } from '../../support/within.js';

interface CustomState {
  steps?: number;
  delay_ms?: number;
  total?: number;
  result?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function clientOf(runtime: RuntimeProcess): Client {
  return new Client({
    apiUrl: runtime.url,
    apiKey: runtime.apiKey,
    callerOptions: { maxRetries: 0 },
  });
}

/** Opens a run's stream on `runtime`, from its start (Last-Event-ID -1) unless told otherwise. */
async function openStream(
  runtime: RuntimeProcess,
  threadId: string,
  runId: string,
  lastEventId = '-1',
): Promise<Response> {
  const response = await fetch(`${runtime.url}/threads/${threadId}/runs/${runId}/stream`, {
    headers: { 'x-api-key': runtime.apiKey, 'last-event-id': lastEventId },
  });
  expect(response.status).toBe(200);
  return response;
}

/** The whole stream of a finished run, read from its start. */
async function replay(runtime: RuntimeProcess, threadId: string, runId: string) {
  const response = await openStream(runtime, threadId, runId);
  return within(readSse(response), 10_000, `the stream of run ${runId} did not end`);
}

/** Reads a live stream until `count` custom events arrived, then lets go of it. */
async function untilCustomEvents(response: Response, count: number): Promise<SseEvent[]> {
  let custom = 0;
  return within(
    readSse(response, {
      stopAfter: (event) => {
        if (event.event === 'custom') custom += 1;
        return custom >= count;
      },
    }),
    10_000,
    `${count} custom events did not arrive`,
  );
}

function expectWellNumbered(events: readonly SseEvent[]): void {
  const ids = events.map((event) => Number(event.id));
  for (const id of ids) expect(Number.isInteger(id)).toBe(true);
  expect(new Set(ids).size).toBe(ids.length);
  for (let i = 1; i < ids.length; i += 1) expect(ids[i]).toBeGreaterThan(ids[i - 1] ?? -1);
  expect(ids[0]).toBe(0);
}

/** Polls a run until it left `pending`. */
async function untilNotPending(client: Client, threadId: string, runId: string): Promise<Run> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await client.runs.get(threadId, runId);
    if (run.status !== 'pending') return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not start within 10 s`);
    await sleep(15);
  }
}

const metadataOf = (events: readonly SseEvent[]) =>
  events
    .filter((event) => event.event === 'metadata')
    .map((event) => event.data as { run_id: string; attempt: number });

describe('agent runtime workers: crashes, retries and a separate API tier', () => {
  let database: TestDatabase | undefined;
  const runtimes: RuntimeProcess[] = [];

  async function start(env: Record<string, string> = {}): Promise<RuntimeProcess> {
    if (!database) throw new Error('no database');
    const runtime = await startRuntime({ databaseUrl: database.url, env });
    runtimes.push(runtime);
    return runtime;
  }

  async function freshDatabase(label: string): Promise<void> {
    database = await createTestDatabase(label);
  }

  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.stop();
    await database?.drop();
    database = undefined;
  }, 60_000);

  /** A slow custom run on a new thread, streaming its progress. */
  async function slowRun(client: Client, steps: number, delayMs: number): Promise<Run> {
    const thread = await client.threads.create();
    return client.runs.create(thread.thread_id, 'custom', {
      input: { steps, delay_ms: delayMs },
      streamMode: ['custom', 'values'],
    });
  }

  it('retries a run whose process was killed, and keeps its whole stream readable', async () => {
    await freshDatabase('runtime_workers_retry');
    const lease = { BERTH_RUN_LEASE_SECONDS: '2' };
    const first = await start(lease);
    const run = await slowRun(clientOf(first), 60, 50);
    const threadId = run.thread_id;

    const seen = await untilCustomEvents(await openStream(first, threadId, run.run_id), 3);
    expect(seen[0]?.event).toBe('metadata');
    await first.kill();

    const second = await start(lease);
    const client = clientOf(second);
    await within(client.runs.join(threadId, run.run_id), 20_000, 'the retried run did not end');
    const finished = await client.runs.get(threadId, run.run_id);
    expect(finished.status).toBe('success');

    const events = await replay(second, threadId, run.run_id);
    expectWellNumbered(events);
    expect(metadataOf(events)).toEqual([
      { run_id: run.run_id, attempt: 1 },
      { run_id: run.run_id, attempt: 2 },
    ]);
    // What the first attempt streamed before the crash is still there, in front of the retry.
    expect(events.slice(0, seen.length)).toEqual(seen);
    const secondMetadata = events.findIndex(
      (event) => event.event === 'metadata' && (event.data as { attempt: number }).attempt === 2,
    );
    const retried = events.slice(secondMetadata);
    const progress = retried.filter(
      (event) => event.event === 'custom' && (event.data as { kind: string }).kind === 'progress',
    );
    expect(progress).toHaveLength(60);
    expect(retried.some((event) => event.event === 'error')).toBe(false);
    const last = events.filter((event) => event.event === 'values').at(-1);
    expect((last?.data as CustomState).result).toBe('The sum of 1..60 is 1830.');

    const state = await client.threads.getState<CustomState>(threadId);
    expect(state.values.total).toBe(1830);
    expect((await client.threads.get(threadId)).status).toBe('idle');

    // Resuming after an id in the middle gives exactly the rest.
    const middle = events[Math.floor(events.length / 2)];
    const rest = await within(
      readSse(await openStream(second, threadId, run.run_id, String(middle?.id))),
      10_000,
      'the resumed stream did not end',
    );
    expect(rest).toEqual(events.slice(Math.floor(events.length / 2) + 1));
  }, 60_000);

  it('ends a run with an error event when its worker died past the maximum attempts', async () => {
    await freshDatabase('runtime_workers_attempts');
    const env = { BERTH_RUN_LEASE_SECONDS: '2', BERTH_RUN_MAX_ATTEMPTS: '1' };
    const first = await start(env);
    const run = await slowRun(clientOf(first), 60, 50);
    const threadId = run.thread_id;
    await untilCustomEvents(await openStream(first, threadId, run.run_id), 3);
    await first.kill();

    const second = await start(env);
    const client = clientOf(second);
    const joined = (await within(
      client.runs.join(threadId, run.run_id),
      20_000,
      'the run did not end',
    )) as { __error__?: { error: string; message: string } };
    expect(joined.__error__?.error).toBe('RunAttemptsExceeded');
    expect((await client.runs.get(threadId, run.run_id)).status).toBe('error');

    const events = await replay(second, threadId, run.run_id);
    expectWellNumbered(events);
    expect(metadataOf(events).map((m) => m.attempt)).toEqual([1, 2]);
    const errors = events.filter((event) => event.event === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.data).toMatchObject({ error: 'RunAttemptsExceeded' });
    expect(events.at(-1)?.event).toBe('error');
    expect(
      events.some((event) => event.event === 'values' && 'result' in (event.data as object)),
    ).toBe(false);
    expect((await client.threads.get(threadId)).status).toBe('error');

    // The thread takes a new run afterwards.
    const next = await client.runs.wait(threadId, 'custom', { input: { steps: 2 } });
    expect((next as CustomState).result).toBe('The sum of 1..2 is 3.');
  }, 60_000);

  describe('an API process without workers, and a queue process without the API, on the same database', () => {
    let api: RuntimeProcess;
    let queue: RuntimeProcess;
    let client: Client;
    /** The two processes running, their database, and the worker settings they were started with. */
    let tiers:
      { database: TestDatabase; processes: RuntimeProcess[]; workerEnv: string } | undefined;

    async function stopTiers(): Promise<void> {
      if (!tiers) return;
      for (const runtime of tiers.processes) await runtime.stop();
      await tiers.database.drop();
      tiers = undefined;
    }

    /**
     * The API process and the queue process, side by side on a fresh database; the tests that ask
     * for the same worker settings share them (none leaves a run going or a thread busy).
     */
    async function startTiers(label: string, workerEnv: Record<string, string>): Promise<void> {
      if (tiers?.workerEnv === JSON.stringify(workerEnv)) return;
      await stopTiers();
      const database = await createTestDatabase(label);
      const processes = await Promise.all([
        startRuntime({ databaseUrl: database.url, env: { BERTH_RUN_WORKERS: 'false' } }),
        startRuntime({
          databaseUrl: database.url,
          env: { ...workerEnv, BERTH_SERVE_API: 'false' },
        }),
      ]);
      tiers = { database, processes, workerEnv: JSON.stringify(workerEnv) };
      [api, queue] = processes;
      client = clientOf(api);
    }

    afterAll(stopTiers, 60_000);

    it('serves nothing of the API from the queue process but its probe and its figures', async () => {
      await startTiers('runtime_workers_tiers', { BERTH_RUN_LEASE_SECONDS: '3' });
      const headers = { 'x-api-key': queue.apiKey };
      expect((await fetch(`${queue.url}/ok`)).status).toBe(200);
      expect((await fetch(`${queue.url}/metrics`, { headers })).status).toBe(200);
      for (const path of ['/threads/search', '/assistants/search', '/info']) {
        const response = await fetch(`${queue.url}${path}`, { method: 'POST', headers });
        expect(response.status).toBe(404);
        expect(((await response.json()) as { detail: string }).detail).toMatch(/queue's runs only/);
      }
      // Its runs are taken all the same: a run created through the API process ends.
      const thread = await client.threads.create();
      const result = await client.runs.wait(thread.thread_id, 'custom', { input: { steps: 3 } });
      expect((result as CustomState).result).toBe('The sum of 1..3 is 6.');
    }, 60_000);

    it('executes runs created through the API process in the worker process', async () => {
      await startTiers('runtime_workers_tiers', { BERTH_RUN_LEASE_SECONDS: '3' });
      const thread = await client.threads.create();

      // A streamed run: created on the API, run by the worker, streamed back through the API.
      const parts: { event: string; data: unknown }[] = [];
      for await (const part of client.runs.stream(thread.thread_id, 'custom', {
        input: { steps: 20, delay_ms: 10 },
        streamMode: ['custom', 'values'],
      })) {
        parts.push(part);
      }
      expect(parts[0]?.event).toBe('metadata');
      expect(parts.filter((part) => part.event === 'custom')).toHaveLength(21);
      const values = parts.filter((part) => part.event === 'values').at(-1);
      expect((values?.data as CustomState).result).toBe('The sum of 1..20 is 210.');

      // Background runs, joined through the API process. Each starts at once, woken by a
      // notification (the workers' fallback poll is once a second).
      const startDelays: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const background = await client.runs.create(thread.thread_id, 'custom', {
          input: { steps: 10, delay_ms: 50 },
        });
        const running = await untilNotPending(client, thread.thread_id, background.run_id);
        expect(running.status).toBe('running');
        startDelays.push(Date.parse(running.updated_at) - Date.parse(background.created_at));
        const result = (await within(
          client.runs.join(thread.thread_id, background.run_id),
          10_000,
          'the background run did not end',
        )) as CustomState;
        expect(result.result).toBe('The sum of 1..10 is 55.');
      }
      expect(Math.max(...startDelays)).toBeLessThan(500);
      const runs = await client.runs.list(thread.thread_id);
      expect(runs.map((run) => run.status)).toEqual(['success', 'success', 'success', 'success']);

      // Several runs on several threads at once.
      const threads = await Promise.all([0, 1, 2].map(() => client.threads.create()));
      const outcomes = await Promise.all(
        threads.map((t, i) =>
          client.runs.wait(t.thread_id, 'custom', { input: { steps: i + 2, delay_ms: 20 } }),
        ),
      );
      expect(outcomes.map((o) => (o as CustomState).total)).toEqual([3, 6, 10]);
    }, 60_000);

    it('streams a live run of the worker process through the API process, and cancels it', async () => {
      await startTiers('runtime_workers_tiers', { BERTH_RUN_LEASE_SECONDS: '3' });
      const run = await slowRun(client, 100, 40);
      const response = await openStream(api, run.thread_id, run.run_id);
      let custom = 0;
      let reached: () => void = () => undefined;
      const fewArrived = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const streamed = readSse(response, {
        stopAfter: (event) => {
          if (event.event === 'custom') custom += 1;
          if (custom >= 3) reached();
          return false;
        },
      });
      await within(fewArrived, 10_000, 'no progress streamed through the API process');
      const began = Date.now();
      const cancelled = await fetch(
        `${api.url}/threads/${run.thread_id}/runs/${run.run_id}/cancel?wait=true`,
        { method: 'POST', headers: { 'x-api-key': api.apiKey } },
      );
      expect(cancelled.status).toBe(204);
      expect(Date.now() - began).toBeLessThan(3_000);
      expect((await client.runs.get(run.thread_id, run.run_id)).status).toBe('interrupted');
      const events = await within(streamed, 5_000, 'the stream did not end');
      expect(events.filter((event) => event.event === 'custom').length).toBeLessThan(100);
    }, 60_000);

    it('interrupts a run of the worker process at once when a run with interrupt comes to the API', async () => {
      // A long lease: the worker's heartbeat (a third of it) does not come during the test.
      await startTiers('runtime_workers_tiers_interrupt', { BERTH_RUN_LEASE_SECONDS: '60' });
      const first = await slowRun(client, 200, 40);
      const running = await untilNotPending(client, first.thread_id, first.run_id);
      expect(running.status).toBe('running');
      const began = Date.now();
      const second = await client.runs.create(first.thread_id, 'custom', {
        input: { steps: 3 },
        multitaskStrategy: 'interrupt',
      });
      await within(
        client.runs.join(first.thread_id, second.run_id),
        20_000,
        'the interrupting run did not finish',
      );
      const elapsed = Date.now() - began;
      // The first run (8 s of work) is stopped, not waited for, as in a single process.
      expect((await client.runs.get(first.thread_id, first.run_id)).status).toBe('interrupted');
      expect((await client.runs.get(first.thread_id, second.run_id)).status).toBe('success');
      expect(elapsed).toBeLessThan(3_000);
    }, 60_000);
  });
});
