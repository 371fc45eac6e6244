import { describe, expect, it } from '@jest/globals';
import { runtimeSuite } from '../../support/runtime-suite.js';

interface Chat {
  messages: { type: string; content: string }[];
}

const ask = (content: string) => ({ messages: [{ role: 'user', content }] });

describe('run options the official SDK sends: delays, durability, checkpoints, stateless threads', () => {
  const suite = runtimeSuite('runtime_run_options', { maxRetries: 0 });

  async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${suite.runtime.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  describe('after_seconds', () => {
    it('keeps the run pending until it falls due, and a later run of the thread waits behind it', async () => {
      const { thread_id } = await suite.client.threads.create();
      const queuedAt = Date.now();
      const delayed = await suite.client.runs.create(thread_id, 'custom', {
        input: { steps: 2 },
        afterSeconds: 1.5,
        multitaskStrategy: 'enqueue',
      });
      expect((await suite.client.runs.get(thread_id, delayed.run_id)).status).toBe('pending');
      const next = await suite.client.runs.create(thread_id, 'custom', {
        input: { steps: 3 },
        multitaskStrategy: 'enqueue',
      });

      await suite.client.runs.join(thread_id, next.run_id);
      const finishedAt = Date.now();
      expect((await suite.client.runs.get(thread_id, delayed.run_id)).status).toBe('success');
      expect(finishedAt - queuedAt).toBeGreaterThanOrEqual(1500);
      const state = await suite.client.threads.getState<{ total: number }>(thread_id);
      expect(state.values.total).toBe(6);
    });

    it('makes another run of the thread a conflict under reject while it waits', async () => {
      const { thread_id } = await suite.client.threads.create();
      const delayed = await suite.client.runs.create(thread_id, 'custom', {
        input: { steps: 2 },
        afterSeconds: 60,
      });
      const refused = await post(`/threads/${thread_id}/runs`, {
        assistant_id: 'custom',
        input: { steps: 2 },
      });
      expect(refused.status).toBe(409);
      await suite.client.runs.cancel(thread_id, delayed.run_id, true);
      expect((await suite.client.runs.get(thread_id, delayed.run_id)).status).toBe('interrupted');
    });

    it('refuses a negative or absurd delay with 422', async () => {
      for (const after_seconds of [-1, 1e12, 'soon']) {
        const answer = await post('/runs', { assistant_id: 'custom', after_seconds });
        expect(answer.status).toBe(422);
      }
    });
  });

  describe('durability', () => {
    async function checkpointsOfOneRun(options: Record<string, unknown>): Promise<number> {
      const { thread_id } = await suite.client.threads.create();
      await suite.client.runs.wait(thread_id, 'agent', {
        input: ask('Weather in Oslo?'),
        ...options,
      });
      return (await suite.client.threads.getHistory(thread_id, { limit: 100 })).length;
    }

    it('writes only the final checkpoint at exit, every step otherwise', async () => {
      const everyStep = await checkpointsOfOneRun({ durability: 'sync' });
      const atExit = await checkpointsOfOneRun({ durability: 'exit' });
      const notDuring = await checkpointsOfOneRun({ checkpointDuring: false });
      expect(everyStep).toBeGreaterThan(2);
      expect(atExit).toBeLessThan(everyStep);
      expect(notDuring).toBe(atExit);
      const refused = await post('/runs', { assistant_id: 'agent', durability: 'eventually' });
      expect(refused.status).toBe(422);
    });
  });

  describe('checkpoint', () => {
    it('starts from the checkpoint given as an object, as checkpoint_id does', async () => {
      const { thread_id } = await suite.client.threads.create();
      await suite.client.runs.wait(thread_id, 'agent', { input: ask('Weather in Oslo?') });
      const afterFirst = await suite.client.threads.getState<Chat>(thread_id);
      await suite.client.runs.wait(thread_id, 'agent', { input: ask('Weather in Rome?') });

      await suite.client.runs.wait(thread_id, 'agent', {
        input: ask('Weather in Lima?'),
        checkpoint: afterFirst.checkpoint,
      });
      const forked = await suite.client.threads.getState<Chat>(thread_id);
      const questions = forked.values.messages
        .filter((message) => message.type === 'human')
        .map((message) => message.content);
      expect(questions).toEqual(['Weather in Oslo?', 'Weather in Lima?']);
    });
  });

  describe('stateless runs', () => {
    it('keeps the thread with on_completion keep, and deletes it by default', async () => {
      const kept = (await post('/runs/wait', {
        assistant_id: 'custom',
        input: { steps: 2 },
        on_completion: 'keep',
      })) as { status: number };
      expect(kept.status).toBe(200);
      const keptRun = await post('/runs', {
        assistant_id: 'custom',
        input: { steps: 3 },
        on_completion: 'keep',
      });
      const run = keptRun.body as { run_id: string; thread_id: string };
      await suite.client.runs.join(run.thread_id, run.run_id);
      const thread = await suite.client.threads.get<{ total: number }>(run.thread_id);
      expect(thread.values.total).toBe(6);

      const dropped = (await post('/runs', { assistant_id: 'custom', input: { steps: 2 } }))
        .body as { run_id: string; thread_id: string };
      await suite.client.runs.join(dropped.thread_id, dropped.run_id);
      await expect(suite.client.threads.get(dropped.thread_id)).rejects.toMatchObject({
        status: 404,
      });
    });
  });

  describe('fields Berth answers for', () => {
    it('accepts stream_resumable (every stream can be resumed)', async () => {
      const { thread_id } = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread_id, 'custom', {
        input: { steps: 2 },
        streamResumable: true,
      });
      await suite.client.runs.join(thread_id, run.run_id);
      const events: string[] = [];
      for await (const part of suite.client.runs.joinStream(thread_id, run.run_id, {
        lastEventId: '-1',
      })) {
        events.push(part.event);
      }
      expect(events).toContain('values');
    });

    it('refuses langsmith_tracer with 422 naming it', async () => {
      const answer = await post('/runs', {
        assistant_id: 'custom',
        langsmith_tracer: { project_name: 'p' },
      });
      expect(answer.status).toBe(422);
      expect(JSON.stringify(answer.body)).toContain('langsmith_tracer');
    });
  });
});

describe('run timeouts: timeout_seconds, and the runtime default BERTH_RUN_TIMEOUT_SECONDS', () => {
  const suite = runtimeSuite(
    'runtime_run_timeouts',
    { maxRetries: 0 },
    { env: { BERTH_RUN_TIMEOUT_SECONDS: '2' } },
  );
  /** 40 steps of 100 ms: about four seconds. */
  const slow = { steps: 40, delay_ms: 100 };

  async function createRun(threadId: string, body: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${suite.runtime.url}/threads/${threadId}/runs`, {
      method: 'POST',
      headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'custom', ...body }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { run_id: string }).run_id;
  }

  it('ends a run past its own timeout as timeout, with an error event, the thread in error', async () => {
    const { thread_id } = await suite.client.threads.create();
    const runId = await createRun(thread_id, { input: slow, timeout_seconds: 1 });
    await suite.client.runs.join(thread_id, runId);
    const run = await suite.client.runs.get(thread_id, runId);
    expect(run.status).toBe('timeout');
    const events: { event: string; data: unknown }[] = [];
    const replay = suite.client.runs.joinStream(thread_id, runId, { lastEventId: '-1' });
    for await (const chunk of replay) events.push(chunk);
    expect(events.find((chunk) => chunk.event === 'error')?.data).toMatchObject({
      error: 'TimeoutError',
      message: 'The run took longer than its timeout of 1 s',
    });
    expect((await suite.client.threads.get(thread_id)).status).toBe('error');
  });

  it("applies the runtime's default to a run without one, and lets a run ask for longer", async () => {
    const { thread_id } = await suite.client.threads.create();
    const defaulted = await createRun(thread_id, { input: slow });
    await suite.client.runs.join(thread_id, defaulted);
    expect((await suite.client.runs.get(thread_id, defaulted)).status).toBe('timeout');
    const longer = await createRun(thread_id, { input: slow, timeout_seconds: 30 });
    await suite.client.runs.join(thread_id, longer);
    expect((await suite.client.runs.get(thread_id, longer)).status).toBe('success');
  });

  it('refuses a timeout under a second or over a day with 422', async () => {
    const { thread_id } = await suite.client.threads.create();
    for (const timeout_seconds of [0, 86_401, 'soon']) {
      const response = await fetch(`${suite.runtime.url}/threads/${thread_id}/runs`, {
        method: 'POST',
        headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ assistant_id: 'custom', input: slow, timeout_seconds }),
      });
      expect(response.status).toBe(422);
    }
  });
});
