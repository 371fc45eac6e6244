import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { startCuttingProxy } from '../../support/cutting-proxy.js';
import { readSse, type SseEvent } from '../../support/sse.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';

interface ProgressEvent {
  readonly kind: 'progress' | 'done';
  readonly node: string;
  readonly step: number;
  readonly of: number;
}

interface SentRequest {
  readonly method: string;
  readonly path: string;
  readonly lastEventId: string | null;
  /** How many events the test had received when the request went out. */
  readonly eventsBefore: number;
}

const STREAM_MODES = ['values', 'custom'];

const ids = (events: readonly SseEvent[]): (string | undefined)[] => events.map((e) => e.id);
const consecutiveIds = (count: number): string[] =>
  Array.from({ length: count }, (_, index) => String(index));
const ofEvent = (events: readonly SseEvent[], name: string): SseEvent[] =>
  events.filter((event) => event.event === name);

/** The custom graph's final state for `steps` steps. */
function finalValues(input: { steps: number; delay_ms?: number }): Record<string, unknown> {
  const total = (input.steps * (input.steps + 1)) / 2;
  return { ...input, total, result: `The sum of 1..${input.steps} is ${total}.` };
}

/** What one uninterrupted attempt of the custom graph streams in modes values and custom. */
function expectOneAttempt(events: readonly SseEvent[], runId: string, attempt: number): void {
  const steps = (events[1]?.data as { steps: number }).steps;
  expect(events.map((event) => event.event)).toEqual([
    'metadata',
    'values',
    ...Array<string>(steps).fill('custom'),
    'values',
    'custom',
    'values',
  ]);
  expect(events[0]?.data).toEqual({ run_id: runId, attempt });
  expect(ofEvent(events, 'custom').map((event) => (event.data as ProgressEvent).step)).toEqual([
    ...Array.from({ length: steps }, (_, index) => index + 1),
    steps,
  ]);
}

describe('resuming agent runtime streams', () => {
  let database: TestDatabase;
  let runtime: RuntimeProcess;
  let client: Client;

  beforeAll(async () => {
    database = await createTestDatabase('runtime_resume');
    runtime = await startRuntime({ databaseUrl: database.url });
    client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
  }, 90_000);

  afterAll(async () => {
    await runtime.stop();
    await database.drop();
  });

  function api(
    path: string,
    init: { body?: unknown; lastEventId?: string; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { 'x-api-key': runtime.apiKey };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (init.lastEventId !== undefined) headers['last-event-id'] = init.lastEventId;
    return fetch(`${runtime.url}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers,
      body: init.body === undefined ? null : JSON.stringify(init.body),
      signal: init.signal ?? null,
    });
  }

  /**
   * Starts a streamed run of the custom graph with a raw fetch, reads `count` events and aborts the
   * request; returns what came and where to reconnect.
   */
  async function streamAndCut(
    input: { steps: number; delay_ms?: number },
    count: number,
  ): Promise<{ threadId: string; runId: string; location: string; part: SseEvent[] }> {
    const thread = await client.threads.create();
    const connection = new AbortController();
    const response = await api(`/threads/${thread.thread_id}/runs/stream`, {
      body: { assistant_id: 'custom', input, stream_mode: STREAM_MODES },
      signal: connection.signal,
    });
    expect(response.status).toBe(200);
    const location = response.headers.get('location') ?? '';
    const part = await readSse(response, { stopAfter: (_, received) => received === count });
    connection.abort();
    expect(part).toHaveLength(count);
    const runId = (part[0]?.data as { run_id: string }).run_id;
    expect(location).toBe(`/threads/${thread.thread_id}/runs/${runId}/stream`);
    return { threadId: thread.thread_id, runId, location, part };
  }

  it('a stream cut while the run goes on resumes after Last-Event-ID: nothing lost, nothing twice', async () => {
    const input = { steps: 60, delay_ms: 15 };
    const { threadId, runId, location, part } = await streamAndCut(input, 5);
    expect(ids(part)).toEqual(consecutiveIds(5));
    expect((await client.runs.get(threadId, runId)).status).toBe('running');

    const rest = await readSse(await api(location, { lastEventId: part.at(-1)?.id ?? '' }));
    expect(rest[0]?.id).toBe('5');
    const replay = await readSse(await api(location, { lastEventId: '-1' }));
    expect([...part, ...rest]).toEqual(replay);
    expect(ids(replay)).toEqual(consecutiveIds(replay.length));
    expectOneAttempt(replay, runId, 1);
    expect(ofEvent(replay, 'values').at(-1)?.data).toEqual(finalValues(input));
    expect((await client.runs.get(threadId, runId)).status).toBe('success');
  });

  it('a stream cut and resumed after the run ended gets the rest: nothing lost, nothing twice', async () => {
    const input = { steps: 30, delay_ms: 5 };
    const { threadId, runId, location, part } = await streamAndCut(input, 5);
    expect(await client.runs.join(threadId, runId)).toEqual(finalValues(input));
    expect((await client.runs.get(threadId, runId)).status).toBe('success');

    const rest = await readSse(await api(location, { lastEventId: part.at(-1)?.id ?? '' }));
    const replay = await readSse(await api(location, { lastEventId: '-1' }));
    expect(rest.length).toBeGreaterThan(0);
    expect([...part, ...rest]).toEqual(replay);
    expect(ids(replay)).toEqual(consecutiveIds(replay.length));
    expectOneAttempt(replay, runId, 1);
  });

  it('Last-Event-ID N gets exactly the records after N, for every N of a finished run', async () => {
    const input = { steps: 6 };
    const { threadId, runId, location } = await streamAndCut(input, 1);
    await client.runs.join(threadId, runId);
    const replay = await readSse(await api(location, { lastEventId: '-1' }));
    expectOneAttempt(replay, runId, 1);
    for (let after = 0; after < replay.length + 2; after++) {
      const tail = await readSse(await api(location, { lastEventId: String(after) }));
      expect(tail).toEqual(replay.slice(after + 1));
    }
    const refused = await api(location, { lastEventId: 'five' });
    expect(refused.status).toBe(400);
  });

  it('a join with a Last-Event-ID past the end of a running run ends as soon as the run does', async () => {
    const thread = await client.threads.create();
    const input = { steps: 40, delay_ms: 50 };
    const run = await client.runs.create(thread.thread_id, 'custom', { input });
    // Both joins of a run by id, on the thread and alone, with an id far past anything it sent.
    const cut = new AbortController();
    const joins = [
      `/threads/${thread.thread_id}/runs/${run.run_id}/stream`,
      `/runs/${run.run_id}/stream`,
    ].map(async (path) => {
      const response = await api(path, { lastEventId: '999999999', signal: cut.signal });
      expect(response.status).toBe(200);
      return response;
    });
    const responses = await Promise.all(joins);
    expect(['pending', 'running']).toContain(
      (await client.runs.get(thread.thread_id, run.run_id)).status,
    );
    const ended = responses.map((response) =>
      readSse(response).then(
        (events) => ({ events, at: Date.now() }),
        () => 'still open 5 s after the run ended' as const,
      ),
    );
    // The run's own end is the reference: each join must end within a bound of it.
    expect(await client.runs.join(thread.thread_id, run.run_id)).toEqual(finalValues(input));
    const finishedAt = Date.now();
    const bound = setTimeout(() => {
      cut.abort();
    }, 5_000);
    try {
      for (const outcome of await Promise.all(ended)) {
        expect(outcome).not.toBe('still open 5 s after the run ended');
        if (typeof outcome === 'string') continue;
        expect(outcome.events).toEqual([]);
        expect(outcome.at - finishedAt).toBeLessThan(5_000);
      }
    } finally {
      clearTimeout(bound);
    }
  });

  it('a long stream (thousands of records, appended in batches) cut early resumes exactly', async () => {
    const input = { steps: 12_000 };
    const { runId, location, part } = await streamAndCut(input, 5);
    const rest = await readSse(await api(location, { lastEventId: part.at(-1)?.id ?? '' }));
    const replay = await readSse(await api(location, { lastEventId: '-1' }));
    expect(replay).toHaveLength(12_005);
    expect(ids([...part, ...rest])).toEqual(consecutiveIds(replay.length));
    expect([...part, ...rest]).toEqual(replay);
    expectOneAttempt(replay, runId, 1);
  }, 60_000);

  it('the SDK reconnects by itself to Location with Last-Event-ID when the connection drops', async () => {
    const input = { steps: 80, delay_ms: 40 };
    // Past the headers and a dozen records: the cut falls inside the stream, while the run goes on.
    const proxy = await startCuttingProxy({ targetPort: runtime.port, cutAfterBytes: 1500 });
    try {
      const received: SseEvent[] = [];
      const requests: SentRequest[] = [];
      const proxied = new Client({
        apiUrl: proxy.url,
        apiKey: runtime.apiKey,
        onRequest: (url, init) => {
          requests.push({
            method: init.method ?? 'GET',
            path: url.pathname,
            lastEventId: new Headers(init.headers).get('last-event-id'),
            eventsBefore: received.length,
          });
          return init;
        },
      });
      const thread = await client.threads.create();
      let runId = '';
      for await (const part of proxied.runs.stream(thread.thread_id, 'custom', {
        input,
        streamMode: ['values', 'custom'],
        onRunCreated: (created) => {
          runId = created.run_id;
        },
      })) {
        const { id, event, data } = part as SseEvent;
        received.push({ id, event, data });
      }

      expect(proxy.wasCut()).toBe(true);
      expect(proxy.firstResponseBytes()).toBe(1500);
      // The stream, its resumption, and (SDK 1.15) the run read once the resumed stream ended,
      // to know whether it is still going.
      expect(proxy.connections()).toBe(3);
      const location = `/threads/${thread.thread_id}/runs/${runId}/stream`;
      expect(requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
        `POST /threads/${thread.thread_id}/runs/stream`,
        `GET ${location}`,
        `GET /threads/${thread.thread_id}/runs/${runId}`,
      ]);
      const [first, reconnect] = requests;
      expect(first?.lastEventId).toBeNull();
      // The reconnect names the last record the SDK had yielded before the cut.
      expect(reconnect?.eventsBefore).toBeGreaterThan(1);
      expect(reconnect?.eventsBefore).toBeLessThan(received.length);
      expect(reconnect?.lastEventId).toBe(received[(reconnect?.eventsBefore ?? 0) - 1]?.id);

      const replay = await readSse(await api(location, { lastEventId: '-1' }));
      expect(received).toEqual(replay);
      expect(ids(received)).toEqual(consecutiveIds(received.length));
      expectOneAttempt(received, runId, 1);
      expect(ofEvent(received, 'values').at(-1)?.data).toEqual(finalValues(input));
    } finally {
      await proxy.close();
    }
  }, 30_000);

  /** Stops the runtime (SIGTERM) and starts a new process on the same database. */
  async function restart(): Promise<number> {
    const stopping = Date.now();
    await runtime.stop();
    const stopMs = Date.now() - stopping;
    runtime = await startRuntime({ databaseUrl: database.url });
    client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
    return stopMs;
  }

  /** Attempt 1 up to where the stop cut it, then attempt 2 (its own metadata first) to the end. */
  function expectRetriedAsAttempt2(
    replay: readonly SseEvent[],
    runId: string,
    input: { steps: number; delay_ms: number },
  ): void {
    expect(ids(replay)).toEqual(consecutiveIds(replay.length));
    expect(ofEvent(replay, 'metadata').map((event) => event.data)).toEqual([
      { run_id: runId, attempt: 1 },
      { run_id: runId, attempt: 2 },
    ]);
    const second = replay.findIndex((event, index) => index > 0 && event.event === 'metadata');
    const firstAttempt = replay.slice(0, second);
    expect(firstAttempt.at(-1)?.event).toBe('custom');
    expect(ofEvent(firstAttempt, 'values')).toHaveLength(1);
    const retried = replay.slice(second);
    expectOneAttempt(retried, runId, 2);
    expect(ofEvent(retried, 'values').at(-1)?.data).toEqual(finalValues(input));
  }

  describe('across a restart of the runtime process', () => {
    // Long enough that a stop never lets the run finish in the stopping process.
    const input = { steps: 120, delay_ms: 100 };

    it('a cut stream resumes on the new process; the run released by SIGTERM runs again as attempt 2', async () => {
      const { threadId, runId, location, part } = await streamAndCut(input, 8);
      expect(ids(part)).toEqual(consecutiveIds(8));

      // SIGTERM: the worker hands the run back to the queue; the next process claims it again.
      await restart();

      const rest = await readSse(await api(location, { lastEventId: part.at(-1)?.id ?? '' }));
      const replay = await readSse(await api(location, { lastEventId: '-1' }));
      expect([...part, ...rest]).toEqual(replay);
      expect(replay.length).toBeGreaterThan(part.length);
      expectRetriedAsAttempt2(replay, runId, input);

      expect(await client.runs.join(threadId, runId)).toEqual(finalValues(input));
      expect((await client.runs.get(threadId, runId)).status).toBe('success');
      expect((await client.threads.getState(threadId)).values).toEqual(finalValues(input));
    }, 90_000);

    it('a wait the stop cuts answers in JSON why: 503 before its answer began, the error in the body after', async () => {
      const wait = async (threadId: string): Promise<Response> =>
        api(`/threads/${threadId}/runs/wait`, { body: { assistant_id: 'custom', input } });
      const [long, short] = await Promise.all([client.threads.create(), client.threads.create()]);
      // Its answer begins (200, then newlines) once it has waited a while.
      const begun = await wait(long.thread_id);
      expect(begun.status).toBe(200);
      expect(begun.headers.get('content-type')).toMatch(/^application\/json/);
      const begunBody = begun.text();
      // This one is still silent when the stop comes.
      const silent = wait(short.thread_id);
      const deadline = Date.now() + 5_000;
      while ((await client.runs.list(short.thread_id)).length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }

      const stopMs = await restart();

      const message = expect.stringMatching(/^The runtime is shutting down before the run ended/);
      expect(JSON.parse(await begunBody)).toEqual({
        detail: message,
        __error__: { error: 'ServiceUnavailable', message },
      });
      const refused = await silent;
      expect(refused.status).toBe(503);
      const { detail } = (await refused.json()) as { detail: string };
      expect(detail).toMatch(/^The runtime is shutting down before the run ended/);
      expect(detail).toContain(`GET /threads/${short.thread_id}/runs/`);
      expect(stopMs).toBeLessThan(8_000);
    }, 60_000);

    it('SIGTERM drains: the SDK stream ends cleanly with where to resume, new requests get 503 and Retry-After, the restarted process gives the rest exactly', async () => {
      const short = { steps: 50, delay_ms: 100 };
      const thread = await client.threads.create();
      const seen: SseEvent[] = [];
      let runId = '';
      let stopping: Promise<void> | undefined;
      let probes: Promise<[Response, Response]> | undefined;
      // The official SDK reads the stream: a cut connection would make it reconnect (and fail
      // with the port closed); the drain's last event and a clean end leave its loop normally.
      for await (const part of client.runs.stream(thread.thread_id, 'custom', {
        input: short,
        streamMode: ['values', 'custom'],
        onRunCreated: (created) => {
          runId = created.run_id;
        },
      })) {
        const { id, event, data } = part as SseEvent;
        seen.push({ id, event, data });
        if (seen.length === 5) stopping = runtime.stop();
        if (event === 'error' && !probes) {
          // The drain began before this event was written: what arrives now is refused.
          probes = Promise.all([api('/ok'), api('/threads', { body: {} })]);
        }
      }
      expect(stopping).toBeDefined();
      expect(probes).toBeDefined();
      const [health, refused] = (await probes) ?? [];
      await stopping;

      const farewell = seen.at(-1);
      const before = seen.slice(0, -1);
      const location = `/threads/${thread.thread_id}/runs/${runId}/stream`;
      // It has no id of its own: the SDK (as SSE says) keeps the last one for it.
      expect(farewell).toEqual({
        id: before.at(-1)?.id,
        event: 'error',
        data: {
          error: 'ServiceUnavailable',
          message: expect.stringContaining(
            `Resume with GET ${location} and Last-Event-ID: ${before.at(-1)?.id}.`,
          ),
          resume_at: location,
          last_event_id: before.at(-1)?.id,
        },
      });
      for (const answer of [health, refused]) {
        expect(answer?.status).toBe(503);
        expect(answer?.headers.get('retry-after')).toBe('2');
      }
      expect(await health?.json()).toEqual({
        ok: false,
        detail: expect.stringMatching(/shutting down/),
      });
      expect(await refused?.json()).toEqual({ detail: expect.stringMatching(/shutting down/) });

      runtime = await startRuntime({ databaseUrl: database.url });
      client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
      const rest: SseEvent[] = [];
      for await (const part of client.runs.joinStream(thread.thread_id, runId, {
        lastEventId: before.at(-1)?.id ?? '',
      })) {
        const { id, event, data } = part as SseEvent;
        rest.push({ id, event, data });
      }
      const replay = await readSse(await api(location, { lastEventId: '-1' }));
      expect([...before, ...rest]).toEqual(replay);
      expectRetriedAsAttempt2(replay, runId, short);
    }, 60_000);

    it('SIGTERM with a client still streaming: the process stops at once and hands the run back', async () => {
      const thread = await client.threads.create();
      const response = await api(`/threads/${thread.thread_id}/runs/stream`, {
        body: { assistant_id: 'custom', input, stream_mode: STREAM_MODES },
      });
      const location = response.headers.get('location') ?? '';
      const seen: SseEvent[] = [];
      let fiveSeen = (): void => undefined;
      const five = new Promise<void>((resolve) => {
        fiveSeen = resolve;
      });
      const reading = readSse(response, {
        stopAfter: (event) => {
          seen.push(event);
          if (seen.length === 5) fiveSeen();
          return false;
        },
      }).then(
        () => 'ended',
        () => 'broken',
      );
      await five;
      const runId = (seen[0]?.data as { run_id: string }).run_id;

      const stopMs = await restart();
      // The drain ends the stream cleanly, with where to resume last.
      expect(await reading).toBe('ended');
      expect(seen.pop()).toMatchObject({ event: 'error', data: { error: 'ServiceUnavailable' } });

      // Whatever the client got before the stop, the new process continues it.
      const rest = await readSse(await api(location, { lastEventId: seen.at(-1)?.id ?? '' }));
      const replay = await readSse(await api(location, { lastEventId: '-1' }));
      expect([...seen, ...rest]).toEqual(replay);
      expect(await client.runs.join(thread.thread_id, runId)).toEqual(finalValues(input));

      // The open stream must not keep the stopping process (and its worker) going until the run ends.
      expect(stopMs).toBeLessThan(8_000);
      expect(ofEvent(seen, 'values').map((event) => event.data)).not.toContainEqual(
        finalValues(input),
      );
      expectRetriedAsAttempt2(replay, runId, input);
    }, 120_000);
  });
});
