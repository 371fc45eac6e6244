import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { type ThreadState } from '@langchain/langgraph-sdk';
import { runtimeSuite } from '../../support/runtime-suite.js';

interface Message {
  type: string;
  content: string;
}
interface AgentValues {
  messages: Message[];
}

/** The snapshot as this runtime serves it: the SDK's ThreadState plus the checkpoint ids. */
type Snapshot = ThreadState<AgentValues> & {
  checkpoint_id: string | null;
  parent_checkpoint_id: string | null;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** ISO 8601 with a time zone designator (Z or an offset). */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const QUESTION = { messages: [{ role: 'user', content: 'What is the weather in Tokyo?' }] };

describe('agent runtime threads over HTTP with the official SDK', () => {
  const suite = runtimeSuite('runtime_threads', { maxRetries: 0 });

  async function http(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${suite.runtime.url}${path}`, {
      method,
      headers: {
        'x-api-key': suite.runtime.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  describe('create, get, update, search, delete', () => {
    it('creates a thread without an id: a new uuid, idle, values null', async () => {
      const thread = await suite.client.threads.create();
      expect(thread.thread_id).toMatch(UUID);
      expect(thread.status).toBe('idle');
      expect(thread.values).toBeNull();
      expect(thread.metadata).toEqual({});
      expect(thread.created_at).toMatch(ISO_WITH_OFFSET);
      expect(thread.updated_at).toMatch(ISO_WITH_OFFSET);

      const fetched = await suite.client.threads.get(thread.thread_id);
      expect(fetched).toMatchObject({
        thread_id: thread.thread_id,
        status: 'idle',
        values: null,
        metadata: {},
      });

      const other = await suite.client.threads.create();
      expect(other.thread_id).not.toBe(thread.thread_id);
    });

    it('creates a thread with a given id and metadata', async () => {
      const threadId = randomUUID();
      const thread = await suite.client.threads.create({
        threadId,
        metadata: { owner: 'alice', tier: 2 },
      });
      expect(thread).toMatchObject({
        thread_id: threadId,
        status: 'idle',
        values: null,
        metadata: { owner: 'alice', tier: 2 },
      });
      expect(await suite.client.threads.get(threadId)).toMatchObject({
        thread_id: threadId,
        status: 'idle',
        values: null,
        metadata: { owner: 'alice', tier: 2 },
      });
    });

    it('accepts an empty JSON object as the create body', async () => {
      const response = await http('POST', '/threads', {});
      expect(response.status).toBe(200);
      const thread = (await response.json()) as { thread_id: string; status: string };
      expect(thread.thread_id).toMatch(UUID);
      expect(thread.status).toBe('idle');
    });

    it('an existing id: raise (the default) answers 409, do_nothing returns the same thread', async () => {
      const threadId = randomUUID();
      const first = await suite.client.threads.create({ threadId, metadata: { round: 1 } });

      await expect(
        suite.client.threads.create({ threadId, metadata: { round: 2 } }),
      ).rejects.toMatchObject({ status: 409 });
      await expect(
        suite.client.threads.create({ threadId, ifExists: 'raise', metadata: { round: 2 } }),
      ).rejects.toMatchObject({ status: 409 });

      const again = await suite.client.threads.create({
        threadId,
        ifExists: 'do_nothing',
        metadata: { round: 3 },
      });
      expect(again.thread_id).toBe(threadId);
      expect(again.metadata).toEqual({ round: 1 });
      expect(again.created_at).toBe(first.created_at);
      expect((await suite.client.threads.get(threadId)).metadata).toEqual({ round: 1 });
    });

    it('a thread id is one id whatever the case of its hex digits (RFC 4122 §3)', async () => {
      const threadId = randomUUID();
      const created = await suite.client.threads.create({
        threadId: threadId.toUpperCase(),
        metadata: { first: true },
      });
      expect(created.thread_id.toLowerCase()).toBe(threadId);
      expect((await suite.client.threads.get(threadId)).metadata).toEqual({ first: true });

      // The same thread under its lowercase spelling: it exists already.
      await expect(
        suite.client.threads.create({ threadId, metadata: { second: true } }),
      ).rejects.toMatchObject({ status: 409 });
      expect((await suite.client.threads.get(threadId)).metadata).toEqual({ first: true });

      const updated = await suite.client.threads.update(threadId, { metadata: { patched: true } });
      expect(updated.metadata).toEqual({ first: true, patched: true });
    });

    it('update merges metadata into the stored metadata', async () => {
      const thread = await suite.client.threads.create({ metadata: { a: 1, b: 1 } });
      const updated = await suite.client.threads.update(thread.thread_id, {
        metadata: { b: 2, c: 3 },
      });
      expect(updated.thread_id).toBe(thread.thread_id);
      expect(updated.metadata).toEqual({ a: 1, b: 2, c: 3 });
      const fetched = await suite.client.threads.get(thread.thread_id);
      expect(fetched.metadata).toEqual({ a: 1, b: 2, c: 3 });
      expect(Date.parse(fetched.updated_at)).toBeGreaterThanOrEqual(Date.parse(thread.updated_at));

      const again = await suite.client.threads.update(thread.thread_id, { metadata: { d: 4 } });
      expect(again.metadata).toEqual({ a: 1, b: 2, c: 3, d: 4 });
    });

    it('search filters by metadata and pages with limit and offset', async () => {
      const tag = randomUUID();
      const created = [];
      for (const color of ['red', 'green', 'red']) {
        created.push(await suite.client.threads.create({ metadata: { tag, color } }));
      }
      const all = await suite.client.threads.search({ metadata: { tag }, limit: 100 });
      expect(all.map((t) => t.thread_id).sort()).toEqual(created.map((t) => t.thread_id).sort());

      const red = await suite.client.threads.search({
        metadata: { tag, color: 'red' },
        limit: 100,
      });
      expect(red.map((t) => t.thread_id).sort()).toEqual(
        [created[0]?.thread_id, created[2]?.thread_id].sort(),
      );

      const first = await suite.client.threads.search({ metadata: { tag }, limit: 2 });
      const rest = await suite.client.threads.search({ metadata: { tag }, limit: 2, offset: 2 });
      expect(first).toHaveLength(2);
      expect(rest).toHaveLength(1);
      expect(new Set([...first, ...rest].map((t) => t.thread_id)).size).toBe(3);

      expect(await suite.client.threads.search({ metadata: { tag: randomUUID() } })).toEqual([]);
    });

    it('delete removes the thread: get, update, state, runs and a second delete answer 404', async () => {
      const tag = randomUUID();
      const thread = await suite.client.threads.create({ metadata: { tag } });
      await suite.client.threads.delete(thread.thread_id);

      await expect(suite.client.threads.get(thread.thread_id)).rejects.toMatchObject({
        status: 404,
      });
      await expect(
        suite.client.threads.update(thread.thread_id, { metadata: { x: 1 } }),
      ).rejects.toMatchObject({ status: 404 });
      await expect(suite.client.threads.getState(thread.thread_id)).rejects.toMatchObject({
        status: 404,
      });
      await expect(suite.client.runs.list(thread.thread_id)).rejects.toMatchObject({ status: 404 });
      await expect(suite.client.threads.delete(thread.thread_id)).rejects.toMatchObject({
        status: 404,
      });
      await expect(
        suite.client.runs.create(thread.thread_id, 'agent', { input: QUESTION }),
      ).rejects.toMatchObject({ status: 404 });
      expect(await suite.client.threads.search({ metadata: { tag } })).toEqual([]);
    });

    it('a thread that ran is deleted with its state', async () => {
      const thread = await suite.client.threads.create();
      await suite.client.runs.wait(thread.thread_id, 'agent', { input: QUESTION });
      await suite.client.threads.delete(thread.thread_id);
      await expect(suite.client.threads.get(thread.thread_id)).rejects.toMatchObject({
        status: 404,
      });
      await expect(suite.client.threads.getHistory(thread.thread_id)).rejects.toMatchObject({
        status: 404,
      });
    });

    it('GET /threads/{id}/runs answers [] for a new thread', async () => {
      const thread = await suite.client.threads.create();
      const response = await http('GET', `/threads/${thread.thread_id}/runs`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
      expect(await suite.client.runs.list(thread.thread_id)).toEqual([]);
    });

    it('a new thread has an empty state and no history', async () => {
      const thread = await suite.client.threads.create();
      const state = (await suite.client.threads.getState(thread.thread_id)) as Snapshot;
      expect(state.next).toEqual([]);
      expect(state.tasks).toEqual([]);
      expect(state.checkpoint_id).toBeNull();
      expect(await suite.client.threads.getHistory(thread.thread_id)).toEqual([]);
    });
  });

  describe('search by status', () => {
    const tag = randomUUID();
    let idleId: string;
    let ranId: string;
    let interruptedId: string;

    beforeAll(async () => {
      idleId = (await suite.client.threads.create({ metadata: { tag } })).thread_id;
      ranId = (await suite.client.threads.create({ metadata: { tag } })).thread_id;
      interruptedId = (await suite.client.threads.create({ metadata: { tag } })).thread_id;
      await suite.client.runs.wait(ranId, 'agent', { input: QUESTION });
      await suite.client.runs.wait(interruptedId, 'interrupt', { input: { topic: 'otters' } });
    });

    it('the interrupted run leaves its thread interrupted, the finished one idle', async () => {
      expect((await suite.client.threads.get(ranId)).status).toBe('idle');
      expect((await suite.client.threads.get(interruptedId)).status).toBe('interrupted');
    });

    it('filters by status', async () => {
      const idle = await suite.client.threads.search({
        metadata: { tag },
        status: 'idle',
        limit: 100,
      });
      expect(idle.map((t) => t.thread_id).sort()).toEqual([idleId, ranId].sort());
      const interrupted = await suite.client.threads.search({
        metadata: { tag },
        status: 'interrupted',
        limit: 100,
      });
      expect(interrupted.map((t) => t.thread_id)).toEqual([interruptedId]);
      expect(
        await suite.client.threads.search({ metadata: { tag }, status: 'error', limit: 100 }),
      ).toEqual([]);
    });
  });

  describe('after a run', () => {
    const tag = randomUUID();
    let threadId: string;
    let runId: string;

    beforeAll(async () => {
      threadId = (await suite.client.threads.create({ metadata: { tag } })).thread_id;
      const run = await suite.client.runs.create(threadId, 'agent', { input: QUESTION });
      runId = run.run_id;
      await suite.client.runs.join(threadId, runId);
    });

    it('the thread is idle and its values hold the messages of the graph', async () => {
      const thread = await suite.client.threads.get<AgentValues>(threadId);
      expect(thread.status).toBe('idle');
      expect(thread.values.messages.map((message) => message.type)).toEqual([
        'human',
        'ai',
        'tool',
        'ai',
      ]);
      expect(thread.values.messages[0]?.content).toBe('What is the weather in Tokyo?');
      expect(thread.values.messages[3]?.content).toContain('Tokyo');
      expect(thread.metadata).toMatchObject({ tag });
      const runs = await suite.client.runs.list(threadId);
      expect(runs.map((run) => [run.run_id, run.status])).toEqual([[runId, 'success']]);
    });

    it('the state has values, next, tasks, metadata, checkpoint ids and created_at', async () => {
      const state = (await suite.client.threads.getState<AgentValues>(threadId)) as Snapshot;
      expect(state.values.messages.map((message) => message.type)).toEqual([
        'human',
        'ai',
        'tool',
        'ai',
      ]);
      expect(state.next).toEqual([]);
      expect(state.tasks).toEqual([]);
      expect(state.metadata).toMatchObject({ step: 3, source: 'loop', thread_id: threadId });
      expect(typeof state.checkpoint_id).toBe('string');
      expect(typeof state.parent_checkpoint_id).toBe('string');
      expect(state.checkpoint_id).not.toBe(state.parent_checkpoint_id);
      expect(state.checkpoint).toMatchObject({
        thread_id: threadId,
        checkpoint_id: state.checkpoint_id,
      });
      expect(state.parent_checkpoint).toMatchObject({
        thread_id: threadId,
        checkpoint_id: state.parent_checkpoint_id,
      });
      expect(state.created_at).toMatch(ISO_WITH_OFFSET);
    });

    it('the state metadata names the run, graph, assistant and creator (interface: Thread state snapshot)', async () => {
      const state = (await suite.client.threads.getState<AgentValues>(threadId)) as Snapshot;
      const run = await suite.client.runs.get(threadId, runId);
      expect(state.metadata).toMatchObject({
        step: 3,
        source: 'loop',
        thread_id: threadId,
        run_id: runId,
        graph_id: 'agent',
        assistant_id: run.assistant_id,
        created_by: 'system',
      });
    });

    it('history lists the checkpoints newest first, chained by parent, honouring limit', async () => {
      const state = (await suite.client.threads.getState(threadId)) as Snapshot;
      const history = (await suite.client.threads.getHistory<AgentValues>(threadId, {
        limit: 100,
      })) as Snapshot[];
      // input, then the steps of __start__, agent, tools, agent.
      expect(history.map((snapshot) => snapshot.metadata?.step)).toEqual([3, 2, 1, 0, -1]);
      expect(history[0]?.checkpoint_id).toBe(state.checkpoint_id);
      for (let i = 0; i + 1 < history.length; i++) {
        expect(history[i]?.parent_checkpoint_id).toBe(history[i + 1]?.checkpoint_id);
        expect(Date.parse(history[i]?.created_at ?? '')).toBeGreaterThanOrEqual(
          Date.parse(history[i + 1]?.created_at ?? ''),
        );
      }
      expect(history.at(-1)?.parent_checkpoint_id).toBeNull();
      expect(
        history.map((snapshot) => (snapshot.values as Partial<AgentValues>).messages?.length ?? 0),
      ).toEqual([4, 3, 2, 1, 0]);
      expect(history.map((snapshot) => snapshot.next)).toEqual([
        [],
        ['agent'],
        ['tools'],
        ['agent'],
        ['__start__'],
      ]);

      const limited = (await suite.client.threads.getHistory(threadId, { limit: 2 })) as Snapshot[];
      expect(limited.map((snapshot) => snapshot.checkpoint_id)).toEqual(
        history.slice(0, 2).map((snapshot) => snapshot.checkpoint_id),
      );
    });

    it('history (SDK getHistory) before a checkpoint starts at its parent', async () => {
      const history = (await suite.client.threads.getHistory(threadId, {
        limit: 100,
      })) as Snapshot[];
      const before = (await suite.client.threads.getHistory(threadId, {
        limit: 2,
        before: { configurable: { checkpoint_id: history[1]?.checkpoint_id } },
      })) as Snapshot[];
      expect(before.map((snapshot) => snapshot.checkpoint_id)).toEqual(
        history.slice(2, 4).map((snapshot) => snapshot.checkpoint_id),
      );
    });

    it('GET /threads/{id}/history?before= starts at the parent of that checkpoint', async () => {
      const history = (await suite.client.threads.getHistory(threadId, {
        limit: 100,
      })) as Snapshot[];
      const response = await http(
        'GET',
        `/threads/${threadId}/history?limit=2&before=${history[1]?.checkpoint_id ?? ''}`,
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as Snapshot[];
      expect(body.map((snapshot) => snapshot.checkpoint_id)).toEqual(
        history.slice(2, 4).map((snapshot) => snapshot.checkpoint_id),
      );
    });

    it('POST and GET /threads/{id}/history honour limit', async () => {
      const history = (await suite.client.threads.getHistory(threadId, {
        limit: 100,
      })) as Snapshot[];
      const posted = await http('POST', `/threads/${threadId}/history`, { limit: 3 });
      expect(posted.status).toBe(200);
      const postedBody = (await posted.json()) as Snapshot[];
      expect(postedBody.map((snapshot) => snapshot.checkpoint_id)).toEqual(
        history.slice(0, 3).map((snapshot) => snapshot.checkpoint_id),
      );

      const got = await http('GET', `/threads/${threadId}/history?limit=2`);
      expect(got.status).toBe(200);
      const gotBody = (await got.json()) as Snapshot[];
      expect(gotBody.map((snapshot) => snapshot.checkpoint_id)).toEqual(
        history.slice(0, 2).map((snapshot) => snapshot.checkpoint_id),
      );
    });

    it('GET /threads/{id}/state/{checkpoint_id} answers that checkpoint', async () => {
      const history = (await suite.client.threads.getHistory<AgentValues>(threadId, {
        limit: 100,
      })) as Snapshot[];
      const older = history[2];
      expect(older?.checkpoint_id).toEqual(expect.any(String));
      const state = (await suite.client.threads.getState<AgentValues>(
        threadId,
        older?.checkpoint_id ?? '',
      )) as Snapshot;
      expect(state.checkpoint_id).toBe(older?.checkpoint_id);
      expect(state.parent_checkpoint_id).toBe(older?.parent_checkpoint_id);
      expect(state.values).toEqual(older?.values);
      expect(state.next).toEqual(['tools']);
      expect(state.metadata?.step).toBe(1);
    });

    it('GET /threads/{id}/state/{checkpoint_id} of a checkpoint the thread does not have answers 404', async () => {
      for (const checkpointId of [randomUUID(), 'not-a-checkpoint']) {
        const response = await http('GET', `/threads/${threadId}/state/${checkpointId}`);
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ detail: expect.any(String) });
      }
    });

    it('a second run on the thread continues from its state', async () => {
      const secondThread = (await suite.client.threads.create()).thread_id;
      await suite.client.runs.wait(secondThread, 'agent', { input: QUESTION });
      const values = (await suite.client.runs.wait(secondThread, 'agent', {
        input: { messages: [{ role: 'user', content: 'And the weather in London?' }] },
      })) as unknown as AgentValues;
      expect(values.messages).toHaveLength(8);
      expect(values.messages[7]?.content).toContain('London');
      const history = await suite.client.threads.getHistory(secondThread, { limit: 100 });
      expect(history).toHaveLength(10);
      expect((await suite.client.runs.list(secondThread)).map((run) => run.status)).toEqual([
        'success',
        'success',
      ]);
    });

    it('the thread metadata names the graph and assistant of its run', async () => {
      const thread = await suite.client.threads.get(threadId);
      expect(thread.metadata).toMatchObject({ tag, graph_id: 'agent' });
      expect(thread.metadata?.assistant_id).toMatch(UUID);
    });

    it('updating the metadata after a run keeps the state and history reachable', async () => {
      await suite.client.threads.update(threadId, { metadata: { reviewed: true } });
      const state = (await suite.client.threads.getState<AgentValues>(threadId)) as Snapshot;
      expect(state.values.messages).toHaveLength(4);
      expect(await suite.client.threads.getHistory(threadId, { limit: 100 })).toHaveLength(5);
      expect(
        (await suite.client.threads.search({ metadata: { tag, reviewed: true } })).map(
          (t) => t.thread_id,
        ),
      ).toEqual([threadId]);
    });

    it('updating the metadata after a run merges into the metadata the run set', async () => {
      const updated = await suite.client.threads.update(threadId, { metadata: { stage: 'done' } });
      expect(updated.metadata).toMatchObject({ tag, stage: 'done', graph_id: 'agent' });
      expect((await suite.client.threads.get(threadId)).metadata).toMatchObject({
        tag,
        stage: 'done',
        graph_id: 'agent',
      });
    });
  });
});
