import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { everyMethodCovered } from '../../../support/sdk-coverage.js';
import { runtimeSuite } from '../../../support/runtime-suite.js';

type CountValues = { steps?: number; total?: number; result?: string };

/** Every method of the official SDK's `client.threads`, each with its options. */
describe('client.threads: every method of the official SDK', () => {
  const suite = runtimeSuite('sdk_threads', { maxRetries: 0 });
  const threads = everyMethodCovered(() => suite.client.threads);
  const tag = randomUUID();

  it('create (with supersteps and ttl), get, update, search, count, copy and delete', async () => {
    const threadId = randomUUID();
    const created = await threads().create({
      threadId,
      metadata: { tag, kind: 'built' },
      graphId: 'custom',
      ttl: { ttl: 60, strategy: 'delete' },
      supersteps: [{ updates: [{ values: { steps: 2 }, asNode: 'count' }] }],
    });
    expect(created).toMatchObject({
      thread_id: threadId,
      metadata: { tag, kind: 'built', graph_id: 'custom' },
    });
    const same = await threads().create({ threadId, ifExists: 'do_nothing' });
    expect(same.thread_id).toBe(threadId);
    expect((await threads().get<CountValues>(threadId)).values).toMatchObject({ steps: 2 });

    const updated = await threads().update(threadId, { metadata: { extra: true }, ttl: 120 });
    expect(updated.metadata).toMatchObject({ tag, kind: 'built', extra: true });

    const found = await threads().search({
      metadata: { tag },
      ids: [threadId],
      limit: 5,
      offset: 0,
      // Built as node count, it has `finish` still to run: interrupted, as the JS server says.
      status: 'interrupted',
      sortBy: 'created_at',
      sortOrder: 'asc',
      select: ['thread_id', 'metadata'],
      values: { steps: 2 },
    });
    expect(found.map((thread) => thread.thread_id)).toEqual([threadId]);
    expect(
      await threads().count({ metadata: { tag }, status: 'interrupted', values: { steps: 2 } }),
    ).toBe(1);

    const copy = await threads().copy(threadId);
    expect(copy.thread_id).not.toBe(threadId);
    expect((await threads().getState<CountValues>(copy.thread_id)).values).toMatchObject({
      steps: 2,
    });

    await threads().delete(copy.thread_id);
    await expect(threads().get(copy.thread_id)).rejects.toThrow(/404/);
  });

  it('getState, updateState, patchState and getHistory: edit state as a node and fork from the past', async () => {
    const thread = await threads().create({ metadata: { tag } });
    await suite.client.runs.wait(thread.thread_id, 'custom', { input: { steps: 3 } });
    const state = await threads().getState<CountValues>(thread.thread_id, undefined, {
      subgraphs: true,
    });
    expect(state.values).toMatchObject({ total: 6 });

    const edited = await threads().updateState<CountValues>(thread.thread_id, {
      values: { total: 100 },
      asNode: 'count',
    });
    // The server answers `{checkpoint}`, as the JS server does (the SDK's type says `configurable`).
    const checkpointOf = (answer: unknown): string =>
      (answer as { checkpoint: { checkpoint_id: string } }).checkpoint.checkpoint_id;
    const editedId = checkpointOf(edited);
    expect((await threads().getState<CountValues>(thread.thread_id)).values).toMatchObject({
      total: 100,
    });
    await threads().patchState(
      { configurable: { thread_id: thread.thread_id, checkpoint_id: editedId } },
      { reviewed_by: 'sdk-test' },
    );
    const atEdit = await threads().getState(thread.thread_id, editedId);
    expect(atEdit.metadata).toMatchObject({ reviewed_by: 'sdk-test' });

    const history = await threads().getHistory<CountValues>(thread.thread_id, {
      limit: 50,
      metadata: { source: 'update' },
    });
    expect(history.map((entry) => entry.checkpoint.checkpoint_id)).toContain(editedId);

    // Time travel: state from the checkpoint before the edit, as the next state of the thread.
    const before = (await threads().getHistory<CountValues>(thread.thread_id, { limit: 2 }))[1];
    const forked = await threads().updateState<CountValues>(thread.thread_id, {
      values: { total: 7 },
      checkpointId: before?.checkpoint.checkpoint_id ?? undefined,
      asNode: 'count',
    });
    expect(checkpointOf(forked)).not.toBe(editedId);
    expect((await threads().getState<CountValues>(thread.thread_id)).values).toMatchObject({
      total: 7,
    });
  });

  it("joinStream follows a thread's runs, from its start with '-'", async () => {
    const thread = await threads().create();
    const run = await suite.client.runs.create(thread.thread_id, 'custom', {
      input: { steps: 2, delay_ms: 50 },
    });
    const seen: [string, unknown][] = [];
    for await (const part of threads().joinStream(thread.thread_id, {
      streamMode: ['lifecycle'],
      lastEventId: '-',
    })) {
      seen.push([part.event, (part.data as { run_id?: string }).run_id]);
      if (part.event === 'run_done') break;
    }
    expect(seen).toEqual([
      ['run_start', run.run_id],
      ['run_done', run.run_id],
    ]);
  });

  it("joinStream's state_update mode gives the thread's state after each run and each update", async () => {
    const thread = await threads().create();
    await suite.client.runs.wait(thread.thread_id, 'custom', { input: { steps: 2 } });
    await threads().updateState<CountValues>(thread.thread_id, {
      values: { total: 42 },
      asNode: 'count',
    });
    const totals: unknown[] = [];
    for await (const part of threads().joinStream(thread.thread_id, {
      streamMode: 'state_update',
      lastEventId: '-',
    })) {
      expect(part.event).toBe('state_update');
      totals.push((part.data as { values: CountValues }).values.total);
      if (totals.length === 2) break;
    }
    expect(totals).toEqual([3, 42]);
  });
  it('prune deletes the threads named that exist, and refuses keep_latest', async () => {
    const kept = await threads().create();
    const first = await threads().create();
    const second = await threads().create();
    const result = await threads().prune([first.thread_id, second.thread_id, randomUUID()]);
    expect(result).toEqual({ pruned_count: 2 });
    await expect(threads().get(first.thread_id)).rejects.toThrow(/404/);
    await expect(threads().get(second.thread_id)).rejects.toThrow(/404/);
    expect((await threads().get(kept.thread_id)).thread_id).toBe(kept.thread_id);
    await expect(threads().prune([kept.thread_id], { strategy: 'keep_latest' })).rejects.toThrow(
      /422/,
    );
    expect((await threads().get(kept.thread_id)).thread_id).toBe(kept.thread_id);
  });

  it('stream opens a thread streaming v2 session (the protocol has its own suite)', async () => {
    const thread = threads().stream({ assistantId: 'custom', transport: 'sse' });
    await thread.run.start({ input: { steps: 2 } });
    expect(await thread.output).toMatchObject({ total: 3 });
    await thread.close();
  });
});
