import { describe, expect, it } from '@jest/globals';
import { Client, type ThreadState } from '@langchain/langgraph-sdk';
import { startRuntime } from '../../support/runtime-process.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

interface Review {
  topic?: string;
  draft?: string;
  approved?: boolean;
  feedback?: string;
  published?: string;
}

type Snapshot = ThreadState<Review> & { checkpoint_id: string | null };

describe('thread state updates, copies and counts with the official SDK', () => {
  const suite = runtimeSuite('runtime_thread_state', { maxRetries: 0 });

  async function interruptedThread(topic: string, metadata: Record<string, string> = {}) {
    const { thread_id } = await suite.client.threads.create({ metadata });
    await suite.client.runs.wait(thread_id, 'interrupt', { input: { topic } });
    return thread_id;
  }

  const state = async (threadId: string) =>
    (await suite.client.threads.getState<Review>(threadId)) as Snapshot;

  async function post(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${suite.runtime.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  describe('human in the loop by state update', () => {
    it('answers the interrupt as the node itself, then resumes past it', async () => {
      const threadId = await interruptedThread('otters');
      expect((await state(threadId)).next).toEqual(['review']);

      const answer = (await suite.client.threads.updateState(threadId, {
        values: { approved: true, feedback: 'fine' },
        asNode: 'review',
      })) as unknown as { checkpoint: { thread_id: string; checkpoint_id: string } };
      expect(answer.checkpoint.thread_id).toBe(threadId);

      const updated = await state(threadId);
      expect(updated.checkpoint_id).toBe(answer.checkpoint.checkpoint_id);
      expect(updated.next).toEqual(['publish']);
      expect(updated.values.approved).toBe(true);
      const thread = await suite.client.threads.get<Review>(threadId);
      expect(thread.values.approved).toBe(true);
      expect(thread.status).toBe('interrupted');

      const done = (await suite.client.runs.wait(threadId, 'interrupt', { input: null })) as Review;
      expect(done.published).toBe('Published: A short note about otters, by the example agent.');
      expect((await suite.client.threads.get(threadId)).status).toBe('idle');
    });

    it('edits the draft as the writer: the review asks about the edited draft', async () => {
      const threadId = await interruptedThread('eels');
      await suite.client.threads.updateState(threadId, {
        values: { draft: 'An edited draft.' },
        asNode: 'write',
      });
      const edited = await state(threadId);
      expect(edited.next).toEqual(['review']);
      expect(edited.values.draft).toBe('An edited draft.');

      await suite.client.runs.wait(threadId, 'interrupt', { input: null });
      const asked = await state(threadId);
      const question = asked.tasks.flatMap((task) => task.interrupts)[0]?.value;
      expect(question).toEqual({
        question: 'Do you approve this draft?',
        draft: 'An edited draft.',
      });
    });

    it('records the update as a checkpoint in the history', async () => {
      const threadId = await interruptedThread('newts');
      const before = await suite.client.threads.getHistory(threadId, { limit: 100 });
      await suite.client.threads.updateState(threadId, {
        values: { approved: false },
        asNode: 'review',
      });
      const after = (await suite.client.threads.getHistory<Review>(threadId, {
        limit: 100,
      })) as Snapshot[];
      expect(after).toHaveLength(before.length + 1);
      expect(after[0]?.values.approved).toBe(false);
      expect(after[0]?.metadata?.source).toBe('update');
    });
  });

  describe('checkpoint metadata', () => {
    it('patches the metadata of the latest checkpoint', async () => {
      const threadId = await interruptedThread('crows');
      const before = await state(threadId);
      await suite.client.threads.patchState(threadId, { reviewed_by: 'ann' });
      const after = await state(threadId);
      expect(after.checkpoint_id).toBe(before.checkpoint_id);
      expect(after.metadata).toMatchObject({ ...before.metadata, reviewed_by: 'ann' });
      const [latest] = await suite.client.threads.getHistory(threadId, {
        metadata: { reviewed_by: 'ann' },
      });
      expect((latest as Snapshot | undefined)?.checkpoint_id).toBe(before.checkpoint_id);
    });

    it('answers 400 for a thread without checkpoints and 422 without metadata', async () => {
      const { thread_id } = await suite.client.threads.create();
      const patch = (body: unknown) =>
        fetch(`${suite.runtime.url}/threads/${thread_id}/state`, {
          method: 'PATCH',
          headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await patch({ metadata: { a: 1 } })).status).toBe(400);
      expect((await patch({ metadata: 'a' })).status).toBe(422);
    });
  });

  describe('time travel', () => {
    it('forks from an earlier checkpoint and runs the fork', async () => {
      const threadId = await interruptedThread('moles');
      await suite.client.runs.wait(threadId, 'interrupt', {
        command: { resume: true },
      });
      const history = (await suite.client.threads.getHistory<Review>(threadId, {
        limit: 100,
      })) as Snapshot[];
      const afterWrite = history.find((snapshot) => snapshot.next.includes('review'));
      expect(afterWrite?.checkpoint_id).toEqual(expect.any(String));

      const fork = (await suite.client.threads.updateState(threadId, {
        values: { draft: 'A forked draft.' },
        asNode: 'write',
        checkpointId: afterWrite?.checkpoint_id ?? '',
      })) as unknown as { checkpoint: { checkpoint_id: string } };
      const forked = await state(threadId);
      expect(forked.checkpoint_id).toBe(fork.checkpoint.checkpoint_id);
      expect(forked.parent_checkpoint).toMatchObject({
        checkpoint_id: afterWrite?.checkpoint_id,
      });
      expect(forked.values.published).toBeUndefined();

      await suite.client.runs.wait(threadId, 'interrupt', { input: null });
      const done = (await suite.client.runs.wait(threadId, 'interrupt', {
        command: { resume: true },
      })) as Review;
      expect(done.published).toBe('Published: A forked draft.');
    });

    it('reads the state at a checkpoint given as an object', async () => {
      const threadId = await interruptedThread('voles');
      const history = (await suite.client.threads.getHistory<Review>(threadId, {
        limit: 100,
      })) as Snapshot[];
      const first = history.at(-1);
      const at = (await suite.client.threads.getState<Review>(threadId, {
        thread_id: threadId,
        checkpoint_ns: '',
        checkpoint_id: first?.checkpoint_id ?? '',
        checkpoint_map: null,
      })) as Snapshot;
      expect(at.checkpoint_id).toBe(first?.checkpoint_id);
      expect(at.values).toEqual(first?.values);
    });
  });

  describe('refusals', () => {
    it('answers 409 while a run is in flight on the thread', async () => {
      const { thread_id } = await suite.client.threads.create();
      const run = await suite.client.runs.create(thread_id, 'custom', {
        input: { steps: 200, delay_ms: 50 },
      });
      const refused = await post(`/threads/${thread_id}/state`, {
        values: { steps: 1 },
        as_node: 'count',
      });
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ detail: expect.stringContaining('busy') });
      await suite.client.runs.cancel(thread_id, run.run_id, true);
    });

    it('answers 400 for a thread that has no graph yet, and for a node the graph does not have', async () => {
      const { thread_id } = await suite.client.threads.create();
      const noGraph = await post(`/threads/${thread_id}/state`, { values: { topic: 'x' } });
      expect(noGraph.status).toBe(400);
      expect(noGraph.body).toEqual({ detail: expect.stringContaining('has no graph') });

      const threadId = await interruptedThread('bats');
      const history = await suite.client.threads.getHistory(threadId, { limit: 100 });
      const unknownNode = await post(`/threads/${threadId}/state`, {
        values: { topic: 'x' },
        as_node: 'no-such-node',
      });
      expect(unknownNode.status).toBe(400);
      expect(unknownNode.body).toEqual({ detail: expect.stringContaining('no-such-node') });
      expect(await suite.client.threads.getHistory(threadId, { limit: 100 })).toHaveLength(
        history.length,
      );
    });

    it('answers 404 for a thread that does not exist and 422 for values of the wrong type', async () => {
      const missing = await post('/threads/00000000-0000-4000-8000-000000000000/state', {
        values: {},
      });
      expect(missing.status).toBe(404);
      const threadId = await interruptedThread('rats');
      const wrong = await post(`/threads/${threadId}/state`, { values: 'text' });
      expect(wrong.status).toBe(422);
    });
  });

  describe('threads created from supersteps', () => {
    it('builds the history from the updates, then runs on from it', async () => {
      const thread = await suite.client.threads.create({
        graphId: 'interrupt',
        supersteps: [
          { updates: [{ values: { topic: 'owls' }, asNode: '__start__' }] },
          { updates: [{ values: { draft: 'A draft from supersteps.' }, asNode: 'write' }] },
        ],
      });
      const built = await state(thread.thread_id);
      expect(built.next).toEqual(['review']);
      expect(built.values).toMatchObject({ topic: 'owls', draft: 'A draft from supersteps.' });
      expect((await suite.client.threads.get<Review>(thread.thread_id)).values.draft).toBe(
        'A draft from supersteps.',
      );

      await suite.client.runs.wait(thread.thread_id, 'interrupt', { input: null });
      const asked = await state(thread.thread_id);
      expect(asked.tasks.flatMap((task) => task.interrupts)[0]?.value).toEqual({
        question: 'Do you approve this draft?',
        draft: 'A draft from supersteps.',
      });
    });

    it('creates no thread when the supersteps cannot be applied', async () => {
      const threadId = '0190a000-0000-7000-8000-00000000c0de';
      const noGraph = await post('/threads', {
        thread_id: threadId,
        supersteps: [{ updates: [{ values: { topic: 'x' }, as_node: '__input__' }] }],
      });
      expect(noGraph.status).toBe(400);
      const badNode = await post('/threads', {
        thread_id: threadId,
        metadata: { graph_id: 'interrupt' },
        supersteps: [{ updates: [{ values: { topic: 'x' }, as_node: 'no-such-node' }] }],
      });
      expect(badNode.status).toBe(400);
      expect(badNode.body).toEqual({ detail: expect.stringContaining('no-such-node') });
      await expect(suite.client.threads.get(threadId)).rejects.toMatchObject({ status: 404 });
      const malformed = await post('/threads', { supersteps: [{ updates: 'x' }] });
      expect(malformed.status).toBe(422);
    });
  });

  describe('copy', () => {
    it('copies the thread with its state and history onto streams of its own', async () => {
      const source = await interruptedThread('hares', { owner: 'copy-test' });
      const sourceHistory = (await suite.client.threads.getHistory<Review>(source, {
        limit: 100,
      })) as Snapshot[];

      const copy = await suite.client.threads.copy(source);
      expect(copy.thread_id).not.toBe(source);
      expect(copy.metadata).toMatchObject({ owner: 'copy-test', thread_id: copy.thread_id });
      expect(copy.status).toBe('interrupted');

      const fetched = await suite.client.threads.get<Review>(copy.thread_id);
      expect(fetched.values.draft).toBe('A short note about hares, by the example agent.');
      const copiedHistory = (await suite.client.threads.getHistory<Review>(copy.thread_id, {
        limit: 100,
      })) as Snapshot[];
      expect(copiedHistory.map((s) => s.checkpoint_id)).toEqual(
        sourceHistory.map((s) => s.checkpoint_id),
      );
      expect(copiedHistory.map((s) => s.values)).toEqual(sourceHistory.map((s) => s.values));

      const resumed = (await suite.client.runs.wait(copy.thread_id, 'interrupt', {
        command: { resume: false },
      })) as Review;
      expect(resumed.published).toBe('Rejected');
      expect((await state(source)).next).toEqual(['review']);
      expect(await suite.client.threads.getHistory(source, { limit: 100 })).toHaveLength(
        sourceHistory.length,
      );
    });

    it('answers 404 for a thread that does not exist', async () => {
      const missing = await post('/threads/00000000-0000-4000-8000-000000000000/copy', {});
      expect(missing.status).toBe(404);
    });
  });

  describe('two runtime processes on one database', () => {
    it('builds each update on the latest checkpoint, whichever process wrote it', async () => {
      const other = await startRuntime({ databaseUrl: suite.database.url });
      try {
        const elsewhere = new Client({
          apiUrl: other.url,
          defaultHeaders: { 'x-api-key': other.apiKey },
        });
        const threadId = await interruptedThread('voles');
        const here = await suite.client.threads.updateState(threadId, {
          values: { feedback: 'here' },
          asNode: 'review',
        });
        const there = await elsewhere.threads.updateState(threadId, {
          values: { feedback: 'there' },
          asNode: 'review',
        });
        const again = await suite.client.threads.updateState(threadId, {
          values: { approved: true },
          asNode: 'review',
        });

        const history = (await elsewhere.threads.getHistory<Review>(threadId, {
          limit: 3,
        })) as Snapshot[];
        const ids = (answer: unknown) =>
          (answer as { checkpoint: { checkpoint_id: string } }).checkpoint.checkpoint_id;
        expect(history.map((snapshot) => snapshot.checkpoint_id)).toEqual([
          ids(again),
          ids(there),
          ids(here),
        ]);
        expect(history[0]?.parent_checkpoint?.checkpoint_id).toBe(ids(there));
        expect(history[0]?.values).toMatchObject({ feedback: 'there', approved: true });
      } finally {
        await other.stop();
      }
    });
  });

  describe('counts', () => {
    it('counts threads and assistants by the search filters', async () => {
      const tag = `count-${Date.now()}`;
      for (let i = 0; i < 3; i++) await suite.client.threads.create({ metadata: { tag } });
      await suite.client.threads.create({ metadata: { tag, odd: 'yes' } });
      expect(await suite.client.threads.count({ metadata: { tag } })).toBe(4);
      expect(await suite.client.threads.count({ metadata: { tag, odd: 'yes' } })).toBe(1);
      expect(await suite.client.threads.count({ metadata: { tag }, status: 'busy' })).toBe(0);

      for (let i = 0; i < 2; i++) {
        await suite.client.assistants.create({ graphId: 'agent', metadata: { tag } });
      }
      expect(await suite.client.assistants.count({ metadata: { tag } })).toBe(2);
      expect(await suite.client.assistants.count({ metadata: { tag }, graphId: 'custom' })).toBe(0);
      const all = await suite.client.assistants.count();
      expect(all).toBeGreaterThanOrEqual(2 + 4);
    });
  });
});
