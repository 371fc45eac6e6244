import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, jest } from '@jest/globals';
import { Client, type Run } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { runtimeSuite } from '../../support/runtime-suite.js';
import { readSse, type SseEvent } from '../../support/sse.js';
import { within } from '../../support/within.js';

type JsonRecord = Record<string, unknown>;

/** The SDK's Run type leaves out `kwargs`, which the runtime's run record has. */
type RunRecord = Run & { kwargs: JsonRecord };

const kwargsOf = (run: Run): JsonRecord => (run as RunRecord).kwargs;

interface CustomState {
  steps?: number;
  delay_ms?: number;
  total?: number;
  result?: string;
}

interface ReviewState {
  topic?: string;
  draft?: string;
  approved?: boolean;
  feedback?: string;
  published?: string;
}

/** What the polls of the run records showed about one run. */
interface RunTimeline {
  readonly runId: string;
  readonly threadId: string;
  status: string;
}

const FINAL = new Set(['success', 'error', 'interrupted', 'timeout']);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const ms = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : Number.NaN);

// End-to-end runs take seconds: more than Jest's default of 5 s for a test or a hook.
jest.setTimeout(30_000);

describe('agent runtime runs: records, interrupts, multitasking, cancel and webhooks', () => {
  const suite = runtimeSuite('runtime_runs', { maxConcurrency: 32, maxRetries: 0 });

  /** A raw request to the runtime, for what the SDK hides (status codes, headers). */
  function api(
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { 'x-api-key': suite.runtime.apiKey, ...init.headers };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${suite.runtime.url}${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  }

  async function newThread(): Promise<string> {
    return (await suite.client.threads.create()).thread_id;
  }

  /** Creates a `custom` run: `steps` progress events, `delayMs` apart. */
  function customRun(
    threadId: string,
    steps: number,
    delayMs: number,
    extra: Parameters<Client['runs']['create']>[2] = {},
  ): Promise<Run> {
    return suite.client.runs.create(threadId, 'custom', {
      input: { steps, delay_ms: delayMs },
      ...extra,
    });
  }

  async function waitForStatus(
    threadId: string,
    runId: string,
    wanted: string,
    timeoutMs = 10_000,
  ): Promise<Run> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await suite.client.runs.get(threadId, runId);
      if (run.status === wanted) return run;
      if (Date.now() > deadline) {
        throw new Error(`run ${runId} is ${run.status}, not ${wanted}, after ${timeoutMs} ms`);
      }
      await sleep(25);
    }
  }

  /**
   * Polls the run records of the threads until `expected` runs have a final status. Every poll of
   * one thread is one query, so what it shows about that thread's runs held at one moment.
   */
  async function followRuns(
    threadIds: readonly string[],
    expected: number,
    timeoutMs = 30_000,
  ): Promise<{ timelines: Map<string, RunTimeline>; runningPerPoll: Map<string, string[]>[] }> {
    const timelines = new Map<string, RunTimeline>();
    const runningPerPoll: Map<string, string[]>[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const poll = new Map<string, string[]>();
      for (const threadId of threadIds) {
        const runs = await suite.client.runs.list(threadId, { limit: 50 });
        poll.set(
          threadId,
          runs.filter((run) => run.status === 'running').map((run) => run.run_id),
        );
        for (const run of runs) {
          const timeline = timelines.get(run.run_id) ?? {
            runId: run.run_id,
            threadId,
            status: run.status,
          };
          timeline.status = run.status;
          timelines.set(run.run_id, timeline);
        }
      }
      runningPerPoll.push(poll);
      const finished = [...timelines.values()].filter((t) => FINAL.has(t.status)).length;
      if (finished >= expected) return { timelines, runningPerPoll };
      if (Date.now() > deadline) {
        throw new Error(`only ${finished} of ${expected} runs finished within ${timeoutMs} ms`);
      }
      await sleep(20);
    }
  }

  /**
   * When each run of a thread ran, from the thread's checkpoints: the first a run wrote (its
   * input, at its start) and the last (at its end). Unlike polling, this misses no short run.
   */
  async function runSpans(threadId: string): Promise<Map<string, { from: number; to: number }>> {
    const history = await suite.client.threads.getHistory(threadId, { limit: 1000 });
    const spans = new Map<string, { from: number; to: number }>();
    for (const checkpoint of history) {
      const runId = checkpoint.metadata?.run_id;
      if (typeof runId !== 'string') continue;
      const at = ms(checkpoint.created_at);
      const span = spans.get(runId) ?? { from: at, to: at };
      spans.set(runId, { from: Math.min(span.from, at), to: Math.max(span.to, at) });
    }
    return spans;
  }

  /** Reads a run's stream from its start (Last-Event-ID -1) until the run ends. */
  async function replay(
    threadId: string,
    runId: string,
    onEvent?: (event: SseEvent) => void,
  ): Promise<SseEvent[]> {
    const response = await api(`/threads/${threadId}/runs/${runId}/stream`, {
      headers: { 'last-event-id': '-1' },
    });
    expect(response.status).toBe(200);
    return readSse(response, {
      stopAfter: (event) => {
        onEvent?.(event);
        return false;
      },
    });
  }

  it('answers a created run as pending with its full record, then joins, gets and lists it', async () => {
    const threadId = await newThread();
    const input = { messages: [{ role: 'user', content: 'What is the weather in Tokyo?' }] };
    const response = await api(`/threads/${threadId}/runs`, {
      method: 'POST',
      body: { assistant_id: 'agent', input },
    });
    expect(response.status).toBe(200);
    const created = (await response.json()) as RunRecord;
    expect(created.status).toBe('pending');
    expect(created.thread_id).toBe(threadId);
    expect(response.headers.get('content-location')).toBe(
      `/threads/${threadId}/runs/${created.run_id}`,
    );
    expect(Object.keys(created.kwargs).sort()).toEqual(
      [
        'config',
        'feedback_keys',
        'input',
        'interrupt_after',
        'interrupt_before',
        'stream_mode',
        'temporary',
        'webhook',
      ].sort(),
    );
    expect(created.kwargs).toMatchObject({
      input,
      webhook: null,
      temporary: false,
      stream_mode: ['values'],
      feedback_keys: null,
      interrupt_after: null,
      interrupt_before: null,
    });
    const config = created.kwargs.config as {
      metadata: JsonRecord;
      configurable: JsonRecord;
    };
    expect(typeof config.metadata.created_by).toBe('string');
    expect(config.configurable).toMatchObject({
      run_id: created.run_id,
      graph_id: 'agent',
      thread_id: threadId,
      assistant_id: created.assistant_id,
      checkpoint_id: null,
    });
    expect(config.configurable).toHaveProperty('user_id');
    expect(created.multitask_strategy).toBe('reject');
    const assistant = await suite.client.assistants.get(created.assistant_id);
    expect(assistant.graph_id).toBe('agent');

    const joined = (await suite.client.runs.join(threadId, created.run_id)) as {
      messages: { type: string; content: string }[];
    };
    expect(joined.messages.map((m) => m.type)).toEqual(['human', 'ai', 'tool', 'ai']);
    expect(joined.messages[3]?.content).toContain('Tokyo');

    const fetched = await suite.client.runs.get(threadId, created.run_id);
    expect(fetched.status).toBe('success');
    expect(kwargsOf(fetched)).toEqual(created.kwargs);
    expect(fetched.multitask_strategy).toBe('reject');

    const second = await suite.client.runs.create(threadId, 'agent', {
      input: { messages: [{ role: 'user', content: 'And in Paris?' }] },
    });
    await suite.client.runs.join(threadId, second.run_id);
    const listed = await suite.client.runs.list(threadId);
    expect(listed.map((run) => run.run_id)).toEqual([second.run_id, created.run_id]);
    expect(listed.map((run) => run.status)).toEqual(['success', 'success']);
    expect(ms(listed[0]?.created_at)).toBeGreaterThanOrEqual(ms(listed[1]?.created_at));
    expect((await suite.client.threads.get(threadId)).status).toBe('idle');
  });

  it('stops at an interrupt, then resumes with a command and completes the graph', async () => {
    const threadId = await newThread();
    await suite.client.runs.wait(threadId, 'interrupt', { input: { topic: 'otters' } });

    const thread = await suite.client.threads.get(threadId);
    expect(thread.status).toBe('interrupted');
    const state = await suite.client.threads.getState<ReviewState>(threadId);
    expect(state.next).toEqual(['review']);
    expect(state.values.draft).toBe('A short note about otters, by the example agent.');
    const task = state.tasks.find((t) => t.interrupts.length > 0);
    expect(task?.name).toBe('review');
    expect(task?.interrupts[0]?.value).toEqual({
      question: 'Do you approve this draft?',
      draft: 'A short note about otters, by the example agent.',
    });
    const threadInterrupts = Object.values(thread.interrupts).flat();
    expect(threadInterrupts).toHaveLength(1);
    expect(threadInterrupts[0]?.value).toEqual(task?.interrupts[0]?.value);

    const resumed = (await suite.client.runs.wait(threadId, 'interrupt', {
      command: { resume: true },
    })) as ReviewState;
    expect(resumed.approved).toBe(true);
    expect(resumed.published).toBe('Published: A short note about otters, by the example agent.');

    const after = await suite.client.threads.getState<ReviewState>(threadId);
    expect(after.next).toEqual([]);
    expect(after.tasks).toEqual([]);
    const idle = await suite.client.threads.get(threadId);
    expect(idle.status).toBe('idle');
    expect(idle.interrupts).toEqual({});
    const runs = await suite.client.runs.list(threadId);
    expect(runs.map((run) => run.status)).toEqual(['success', 'success']);

    // The other form of answer: {approved, feedback}.
    const other = await newThread();
    await suite.client.runs.wait(other, 'interrupt', { input: { topic: 'eels' } });
    const rejected = (await suite.client.runs.wait(other, 'interrupt', {
      command: { resume: { approved: false, feedback: 'too short' } },
    })) as ReviewState;
    expect(rejected.published).toBe('Rejected: too short');
    expect((await suite.client.threads.get(other)).status).toBe('idle');
  });

  describe('a second run on a busy thread', () => {
    it('is rejected with 409 under the default strategy', async () => {
      const threadId = await newThread();
      const first = await customRun(threadId, 50, 40);

      const response = await api(`/threads/${threadId}/runs`, {
        method: 'POST',
        body: { assistant_id: 'custom', input: { steps: 1 } },
      });
      expect(response.status).toBe(409);
      expect(response.headers.get('content-type')).toContain('application/json');
      const body = (await response.json()) as { detail?: unknown };
      expect(typeof body.detail).toBe('string');
      await expect(
        suite.client.runs.create(threadId, 'custom', { input: { steps: 1 } }),
      ).rejects.toThrow();
      const explicit = await api(`/threads/${threadId}/runs`, {
        method: 'POST',
        body: { assistant_id: 'custom', input: { steps: 1 }, multitask_strategy: 'reject' },
      });
      expect(explicit.status).toBe(409);

      await suite.client.runs.join(threadId, first.run_id);
      const runs = await suite.client.runs.list(threadId);
      expect(runs.map((run) => [run.run_id, run.status])).toEqual([[first.run_id, 'success']]);
      // Free again: a new run is admitted.
      const again = await customRun(threadId, 1, 0);
      await suite.client.runs.join(threadId, again.run_id);
      expect((await suite.client.runs.get(threadId, again.run_id)).status).toBe('success');
    });

    it('waits its turn under enqueue and starts after the first finished', async () => {
      const threadId = await newThread();
      const first = await customRun(threadId, 20, 40);
      const second = await customRun(threadId, 10, 30, { multitaskStrategy: 'enqueue' });
      expect(second.status).toBe('pending');
      expect(second.multitask_strategy).toBe('enqueue');

      const joined: string[] = [];
      const joins = [first, second].map((run) =>
        suite.client.runs.join(threadId, run.run_id).then(() => joined.push(run.run_id)),
      );
      const { timelines, runningPerPoll } = await followRuns([threadId], 2);
      await Promise.all(joins);

      for (const poll of runningPerPoll) expect(poll.get(threadId)?.length ?? 0).toBeLessThan(2);
      const a = timelines.get(first.run_id);
      const b = timelines.get(second.run_id);
      expect(a?.status).toBe('success');
      expect(b?.status).toBe('success');
      const spans = await runSpans(threadId);
      const firstSpan = spans.get(first.run_id);
      const secondSpan = spans.get(second.run_id);
      expect(firstSpan).toBeDefined();
      expect(secondSpan).toBeDefined();
      expect(secondSpan?.from).toBeGreaterThanOrEqual(firstSpan?.to ?? Infinity);
      expect(joined).toEqual([first.run_id, second.run_id]);
      const values = (await suite.client.threads.getState<CustomState>(threadId)).values;
      expect(values.result).toBe('The sum of 1..10 is 55.');
    });

    it('interrupts the first under interrupt, and the second succeeds', async () => {
      const threadId = await newThread();
      const first = await customRun(threadId, 100, 40);
      await waitForStatus(threadId, first.run_id, 'running');
      const began = Date.now();
      const second = await customRun(threadId, 3, 0, { multitaskStrategy: 'interrupt' });
      await suite.client.runs.join(threadId, second.run_id);
      const elapsed = Date.now() - began;

      expect((await suite.client.runs.get(threadId, first.run_id)).status).toBe('interrupted');
      expect((await suite.client.runs.get(threadId, second.run_id)).status).toBe('success');
      // The first (4 s of work) was stopped, not waited for.
      expect(elapsed).toBeLessThan(3_000);
      const values = (await suite.client.threads.getState<CustomState>(threadId)).values;
      expect(values.result).toBe('The sum of 1..3 is 6.');
      expect((await suite.client.threads.get(threadId)).status).toBe('idle');
    });

    it('rolls the first back under rollback: the first run is deleted, its input undone', async () => {
      const threadId = await newThread();
      await suite.client.runs.wait(threadId, 'custom', { input: { steps: 2 } });
      const first = await customRun(threadId, 100, 40);
      await waitForStatus(threadId, first.run_id, 'running');
      const second = await customRun(threadId, 3, 0, { multitaskStrategy: 'rollback' });
      await suite.client.runs.join(threadId, second.run_id);

      expect((await suite.client.runs.get(threadId, second.run_id)).status).toBe('success');
      // Rolled back: the run is gone, and so is what it wrote (its input's delay_ms).
      const gone = await api(`/threads/${threadId}/runs/${first.run_id}`);
      expect(gone.status).toBe(404);
      const runs = await suite.client.runs.list(threadId);
      expect(runs.map((run) => run.run_id)).not.toContain(first.run_id);
      const values = (await suite.client.threads.getState<CustomState>(threadId)).values;
      expect(values.result).toBe('The sum of 1..3 is 6.');
      // The second run's own input (delay 0), on top of the state from before the first (no 40).
      expect(values.delay_ms).toBe(0);
      const history = await suite.client.threads.getHistory(threadId, { limit: 50 });
      const restoring = history.find(
        (state) => state.metadata?.rolled_back_run_id === first.run_id,
      );
      expect(restoring?.values).not.toHaveProperty('delay_ms');
    });

    it('cancels a run still waiting in the queue: it never starts, the next one does', async () => {
      const threadId = await newThread();
      // Long enough (4 s) that the cancel surely finds the second run still waiting, however slow the machine.
      const first = await customRun(threadId, 100, 40);
      const waiting = await customRun(threadId, 3, 0, { multitaskStrategy: 'enqueue' });
      const third = await customRun(threadId, 4, 0, { multitaskStrategy: 'enqueue' });
      const response = await api(`/threads/${threadId}/runs/${waiting.run_id}/cancel?wait=true`, {
        method: 'POST',
      });
      expect(response.status).toBe(204);
      expect((await suite.client.runs.get(threadId, waiting.run_id)).status).toBe('interrupted');
      await suite.client.runs.join(threadId, third.run_id);
      expect((await suite.client.runs.get(threadId, first.run_id)).status).toBe('success');
      expect((await suite.client.runs.get(threadId, third.run_id)).status).toBe('success');
      // Nothing but (at most) the metadata announcing it: the graph never ran.
      const events = await replay(threadId, waiting.run_id);
      expect(events.filter((event) => event.event !== 'metadata')).toEqual([]);
      const values = (await suite.client.threads.getState<CustomState>(threadId)).values;
      expect(values.result).toBe('The sum of 1..4 is 10.');
      expect((await suite.client.threads.get(threadId)).status).toBe('idle');
    });
  });

  it('makes the thread of a run that asks for it with if_not_exists, and none for an unknown assistant', async () => {
    const threadId = randomUUID();
    const body = { assistant_id: 'custom', input: { steps: 1 } };

    const refused = await api(`/threads/${threadId}/runs`, { method: 'POST', body });
    expect(refused.status).toBe(404);
    const unknownAssistant = await api(`/threads/${threadId}/runs`, {
      method: 'POST',
      body: { ...body, assistant_id: 'no-such-graph', if_not_exists: 'create' },
    });
    expect(unknownAssistant.status).toBe(404);
    expect(await unknownAssistant.json()).toEqual({
      detail: expect.stringContaining('No assistant found') as unknown,
    });
    await expect(suite.client.threads.get(threadId)).rejects.toMatchObject({ status: 404 });

    const run = await suite.client.runs.create(threadId, 'custom', {
      input: { steps: 1 },
      ifNotExists: 'create',
    });
    await suite.client.runs.join(threadId, run.run_id);
    expect((await suite.client.runs.get(threadId, run.run_id)).status).toBe('success');
    expect((await suite.client.threads.get(threadId)).thread_id).toBe(threadId);
  });

  it('admits a new run on a thread as soon as its previous run is reported finished', async () => {
    // Back to back runs.wait calls on one thread (the usual resume-after-interrupt pattern) now
    // and then get 409 for a run that already finished: the worker appends RunFinished, which
    // ends the join, and only then takes the run out of the queue. A trigger that makes taking
    // this thread's runs out of the queue slow (as a busy database would) holds the window open.
    const threadId = await newThread();
    const admin = new pg.Client({ connectionString: suite.database.url });
    await admin.connect();
    try {
      await admin.query(`create or replace function berth_test_slow_dequeue() returns trigger
        language plpgsql as $$ begin perform pg_sleep(1.5); return old; end $$`);
      await admin.query(`create trigger berth_test_slow_dequeue before delete on run_queue
        for each row when (old.thread_id = '${threadId}')
        execute function berth_test_slow_dequeue()`);
      const run = await customRun(threadId, 3, 0);
      await suite.client.runs.join(threadId, run.run_id);

      // The run is over for every client: joined, and its record and the thread say so...
      expect((await suite.client.runs.get(threadId, run.run_id)).status).toBe('success');
      expect((await suite.client.threads.get(threadId)).status).toBe('idle');
      // ...so the thread takes a new run under the default strategy.
      const response = await api(`/threads/${threadId}/runs`, {
        method: 'POST',
        body: { assistant_id: 'custom', input: { steps: 1 } },
      });
      const answer = (await response.json()) as { run_id?: string; detail?: unknown };
      expect({ status: response.status, detail: answer.detail }).toEqual({
        status: 200,
        detail: undefined,
      });
      if (answer.run_id !== undefined) await suite.client.runs.join(threadId, answer.run_id);
    } finally {
      await admin.query('drop trigger if exists berth_test_slow_dequeue on run_queue');
      await admin.end();
    }
  });

  it('cancels a running run: 204 with wait, status interrupted, its stream ends', async () => {
    const threadId = await newThread();
    const run = await customRun(threadId, 100, 40, { streamMode: ['custom', 'values'] });
    let progress = 0;
    let reached: () => void = () => undefined;
    const fewArrived = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const streamed = replay(threadId, run.run_id, (event) => {
      if (event.event === 'custom') progress += 1;
      if (progress >= 3) reached();
    });
    await fewArrived;

    const began = Date.now();
    const response = await api(`/threads/${threadId}/runs/${run.run_id}/cancel?wait=true`, {
      method: 'POST',
    });
    expect(response.status).toBe(204);
    expect(Date.now() - began).toBeLessThan(3_000);
    expect((await suite.client.runs.get(threadId, run.run_id)).status).toBe('interrupted');

    const events = await within(streamed, 5_000, 'the stream of the cancelled run did not end');
    const custom = events.filter((event) => event.event === 'custom');
    expect(custom.length).toBeGreaterThanOrEqual(3);
    expect(custom.length).toBeLessThan(100);
    expect(events[0]?.event).toBe('metadata');
    expect(events.some((event) => event.event === 'error')).toBe(false);

    // A cancelled run joins at once, and a new run on the thread is admitted.
    await suite.client.runs.join(threadId, run.run_id);
    const next = await customRun(threadId, 2, 0);
    await suite.client.runs.join(threadId, next.run_id);
    expect((await suite.client.runs.get(threadId, next.run_id)).status).toBe('success');
  });

  it('POSTs the finished run to its webhook', async () => {
    const received: { body: JsonRecord; request: IncomingMessage }[] = [];
    let delivered: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      delivered = resolve;
    });
    const server: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          body: JSON.parse(Buffer.concat(chunks).toString() || 'null') as JsonRecord,
          request,
        });
        response.writeHead(200).end();
        delivered();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const threadId = await newThread();
      const webhook = `http://127.0.0.1:${port}/hooks/run-done`;
      const run = await suite.client.runs.create(threadId, 'custom', {
        input: { steps: 3 },
        webhook,
      });
      expect(kwargsOf(run).webhook).toBe(webhook);
      await suite.client.runs.join(threadId, run.run_id);
      await within(arrived, 10_000, 'no webhook call');

      expect(received).toHaveLength(1);
      const [call] = received;
      expect(call?.request.method).toBe('POST');
      expect(call?.request.url).toBe('/hooks/run-done');
      expect(call?.request.headers['content-type']).toContain('application/json');
      expect(call?.body).toMatchObject({
        run_id: run.run_id,
        thread_id: threadId,
        assistant_id: run.assistant_id,
        status: 'success',
        values: { steps: 3, total: 6, result: 'The sum of 1..3 is 6.' },
      });
      await sleep(300);
      expect(received).toHaveLength(1);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it('never runs two runs of one thread at once, while other threads run in parallel', async () => {
    const queued = await newThread();
    const others = [await newThread(), await newThread()];
    const serial: Run[] = [];
    for (let i = 0; i < 4; i += 1) {
      serial.push(await customRun(queued, 8, 50, { multitaskStrategy: 'enqueue' }));
    }
    const parallel: Run[] = [];
    for (const threadId of others) parallel.push(await customRun(threadId, 30, 40));

    const { timelines, runningPerPoll } = await followRuns([queued, ...others], 6);

    // No look at the run records ever showed two runs of the queued thread running...
    for (const poll of runningPerPoll) expect(poll.get(queued)?.length ?? 0).toBeLessThan(2);
    for (const run of [...serial, ...parallel]) {
      expect(timelines.get(run.run_id)?.status).toBe('success');
    }
    // ...and by their checkpoints each started after the one before it had ended.
    const queuedSpans = await runSpans(queued);
    const ordered = serial.map((run) => queuedSpans.get(run.run_id));
    for (const span of ordered) expect(span).toBeDefined();
    for (let i = 1; i < ordered.length; i += 1) {
      expect(ordered[i]?.from).toBeGreaterThanOrEqual(ordered[i - 1]?.to ?? Infinity);
    }

    // The other threads' runs ran at the same time as each other and as the queued thread's.
    const [b, c] = await Promise.all(
      others.map(async (threadId, i) => (await runSpans(threadId)).get(parallel[i]?.run_id ?? '')),
    );
    const overlap = (x?: { from: number; to: number }, y?: { from: number; to: number }) =>
      x !== undefined && y !== undefined && x.from < y.to && y.from < x.to;
    expect(overlap(b, c)).toBe(true);
    expect(ordered.some((span) => overlap(span, b))).toBe(true);
    expect(ordered.some((span) => overlap(span, c))).toBe(true);
  });
});
