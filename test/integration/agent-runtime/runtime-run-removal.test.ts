import { describe, expect, it } from '@jest/globals';
import type { Run } from '@langchain/langgraph-sdk';
import { runtimeSuite } from '../../support/runtime-suite.js';

describe('deleting runs, cancelling many and creating runs in a batch', () => {
  const suite = runtimeSuite('runtime_run_removal', { maxRetries: 0 });

  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${suite.runtime.url}${path}`, {
      method,
      headers: {
        'x-api-key': suite.runtime.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  const slowRun = (threadId: string, strategy: 'enqueue' | 'reject' = 'reject') =>
    suite.client.runs.create(threadId, 'custom', {
      input: { steps: 400, delay_ms: 50 },
      multitaskStrategy: strategy,
    });

  async function finished(threadId: string, runId: string): Promise<Run> {
    await suite.client.runs.join(threadId, runId);
    return suite.client.runs.get(threadId, runId);
  }

  describe('DELETE /threads/{id}/runs/{run_id}', () => {
    it('removes a finished run from the thread and answers 404 for it afterwards', async () => {
      const { thread_id } = await suite.client.threads.create();
      const kept = await suite.client.runs.create(thread_id, 'agent', {
        input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
      });
      await suite.client.runs.join(thread_id, kept.run_id);
      const removed = await suite.client.runs.create(thread_id, 'agent', {
        input: { messages: [{ role: 'user', content: 'And in Rome?' }] },
      });
      await suite.client.runs.join(thread_id, removed.run_id);

      await suite.client.runs.delete(thread_id, removed.run_id);

      const listed = await suite.client.runs.list(thread_id);
      expect(listed.map((run) => run.run_id)).toEqual([kept.run_id]);
      expect((await call('GET', `/threads/${thread_id}/runs/${removed.run_id}`)).status).toBe(404);
      expect((await call('GET', `/threads/${thread_id}/runs/${removed.run_id}/join`)).status).toBe(
        404,
      );
      const again = await call('DELETE', `/threads/${thread_id}/runs/${removed.run_id}`);
      expect(again.status).toBe(404);
      const state = await suite.client.threads.getState<{ messages: unknown[] }>(thread_id);
      expect(state.values.messages.length).toBeGreaterThan(2);
    });

    it('answers 409 for a run still in flight and 404 for a run of another thread', async () => {
      const { thread_id } = await suite.client.threads.create();
      const run = await slowRun(thread_id);
      const refused = await call('DELETE', `/threads/${thread_id}/runs/${run.run_id}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ detail: expect.stringContaining('cancel it first') });

      const other = await suite.client.threads.create();
      const elsewhere = await call('DELETE', `/threads/${other.thread_id}/runs/${run.run_id}`);
      expect(elsewhere.status).toBe(404);
      await suite.client.runs.cancel(thread_id, run.run_id, true);
      expect((await suite.client.runs.get(thread_id, run.run_id)).status).toBe('interrupted');
    });
  });

  describe('POST /runs/cancel', () => {
    it('cancels every run of a thread, running and waiting', async () => {
      const { thread_id } = await suite.client.threads.create();
      const first = await slowRun(thread_id);
      const second = await slowRun(thread_id, 'enqueue');
      const bystander = await suite.client.threads.create();
      const untouched = await suite.client.runs.create(bystander.thread_id, 'custom', {
        input: { steps: 3 },
      });

      const answer = await call('POST', '/runs/cancel', { thread_id });
      expect(answer.status).toBe(204);

      expect((await finished(thread_id, first.run_id)).status).toBe('interrupted');
      expect((await finished(thread_id, second.run_id)).status).toBe('interrupted');
      expect((await finished(bystander.thread_id, untouched.run_id)).status).toBe('success');
    });

    it('cancels the named runs only, with rollback when asked', async () => {
      const a = await suite.client.threads.create();
      const b = await suite.client.threads.create();
      const runA = await slowRun(a.thread_id);
      const runB = await suite.client.runs.create(b.thread_id, 'custom', {
        input: { steps: 20, delay_ms: 20 },
      });

      const answer = await call('POST', '/runs/cancel?action=rollback', {
        run_ids: [runA.run_id.toUpperCase()],
      });
      expect(answer.status).toBe(204);
      // The run's stream stays readable to its end after the rollback removed the run.
      const events: string[] = [];
      for await (const part of suite.client.runs.joinStream(a.thread_id, runA.run_id, {
        lastEventId: '-1',
      })) {
        events.push(part.event);
      }
      expect(events[0]).toBe('metadata');
      expect((await call('GET', `/threads/${a.thread_id}/runs/${runA.run_id}`)).status).toBe(404);
      expect((await finished(b.thread_id, runB.run_id)).status).toBe('success');
    });

    it('refuses a body that names nothing, and bad ids or statuses, with 422', async () => {
      for (const body of [{}, { run_ids: ['not-a-uuid'] }, { status: 'finished' }]) {
        const answer = await call('POST', '/runs/cancel', body);
        expect(answer.status).toBe(422);
        expect(answer.body).toEqual({ detail: expect.any(Array) });
      }
      expect((await call('POST', '/runs/cancel?action=explode', { status: 'all' })).status).toBe(
        422,
      );
    });
  });

  describe('POST /runs/batch', () => {
    it('creates every stateless run of the list and answers them in order', async () => {
      const runs = await suite.client.runs.createBatch([
        { assistantId: 'custom', input: { steps: 2 } },
        { assistantId: 'custom', input: { steps: 3 } },
      ]);
      expect(runs).toHaveLength(2);
      const totals: unknown[] = [];
      for (const run of runs) {
        const ended = await call('GET', `/threads/${run.thread_id}/runs/${run.run_id}/join`);
        expect(ended.status).toBe(200);
        totals.push((ended.body as { total?: number }).total);
      }
      expect(totals).toEqual([3, 6]);
    });

    it('validates each item and names its index in loc', async () => {
      const answer = await call('POST', '/runs/batch', [
        { assistant_id: 'custom' },
        { assistant_id: 'custom', stream_mode: 'no-such-mode' },
      ]);
      expect(answer.status).toBe(422);
      const issues = (answer.body as { detail: { loc: unknown[] }[] }).detail;
      expect(issues[0]?.loc.slice(0, 2)).toEqual(['body', 1]);
      expect((await call('POST', '/runs/batch', { assistant_id: 'custom' })).status).toBe(422);
    });
  });
});
