import { describe, expect, it } from '@jest/globals';
import { everyMethodCovered } from '../../../support/sdk-coverage.js';
import { runtimeSuite } from '../../../support/runtime-suite.js';

type CountValues = { total?: number; result?: string };

/** Every method of the official SDK's `client.runs`, each with its options. */
describe('client.runs: every method of the official SDK', () => {
  const suite = runtimeSuite('sdk_runs', { maxRetries: 0 });
  const runs = everyMethodCovered(() => suite.client.runs);

  it('stream and wait, on a thread and stateless', async () => {
    const thread = await suite.client.threads.create();
    const events: string[] = [];
    for await (const part of runs().stream(thread.thread_id, 'custom', {
      input: { steps: 2 },
      streamMode: ['values', 'custom'],
      metadata: { via: 'stream' },
    })) {
      events.push(part.event);
    }
    expect(events[0]).toBe('metadata');
    expect(events).toContain('custom');
    expect(events.at(-1)).toBe('values');

    const waited = (await runs().wait(thread.thread_id, 'custom', {
      input: { steps: 3 },
      multitaskStrategy: 'reject',
    })) as CountValues;
    expect(waited).toMatchObject({ total: 6 });
    const stateless = (await runs().wait(null, 'custom', {
      input: { steps: 4 },
      metadata: { via: 'stateless wait' },
    })) as CountValues;
    expect(stateless).toMatchObject({ total: 10 });
  });

  it('create, join, joinStream, get, list and delete a background run', async () => {
    const thread = await suite.client.threads.create();
    const run = await runs().create(thread.thread_id, 'custom', {
      input: { steps: 3 },
      metadata: { via: 'create' },
      streamMode: 'custom',
      streamResumable: true,
    });
    expect(run).toMatchObject({ thread_id: thread.thread_id, metadata: { via: 'create' } });
    const joined = (await runs().join(thread.thread_id, run.run_id)) as CountValues;
    expect(joined).toMatchObject({ total: 6 });
    const replayed: string[] = [];
    for await (const part of runs().joinStream(thread.thread_id, run.run_id, {
      lastEventId: '-1',
      streamMode: 'custom',
    })) {
      replayed.push(part.event);
    }
    expect(replayed).toEqual(['metadata', 'custom', 'custom', 'custom', 'custom']);
    expect(await runs().get(thread.thread_id, run.run_id)).toMatchObject({ status: 'success' });
    const listed = await runs().list(thread.thread_id, {
      limit: 5,
      offset: 0,
      status: 'success',
      select: ['run_id', 'status'],
    });
    expect(listed).toEqual([{ run_id: run.run_id, status: 'success' }]);
    await runs().delete(thread.thread_id, run.run_id);
    await expect(runs().get(thread.thread_id, run.run_id)).rejects.toThrow(/404/);
  });

  it('createBatch starts stateless runs, and cancel interrupts a running one', async () => {
    const batch = await runs().createBatch([
      { assistantId: 'custom', input: { steps: 1 } },
      { assistantId: 'custom', input: { steps: 2 } },
    ]);
    expect(batch).toHaveLength(2);
    for (const run of batch) {
      expect((await runs().join(run.thread_id, run.run_id)) as CountValues).toHaveProperty('total');
    }

    const thread = await suite.client.threads.create();
    const long = await runs().create(thread.thread_id, 'custom', {
      input: { steps: 500, delay_ms: 20 },
    });
    await runs().cancel(thread.thread_id, long.run_id, true, 'interrupt');
    expect((await runs().get(thread.thread_id, long.run_id)).status).toBe('interrupted');
  });

  it('cancelMany cancels the runs named on a thread', async () => {
    const thread = await suite.client.threads.create();
    const slow = await runs().create(thread.thread_id, 'custom', {
      input: { steps: 500, delay_ms: 20 },
    });
    const queued = await runs().create(thread.thread_id, 'custom', {
      input: { steps: 1 },
      multitaskStrategy: 'enqueue',
    });
    await runs().cancelMany({
      threadId: thread.thread_id,
      runIds: [slow.run_id, queued.run_id],
      action: 'interrupt',
    });
    await runs().join(thread.thread_id, slow.run_id);
    for (const run of [slow, queued]) {
      expect((await runs().get(thread.thread_id, run.run_id)).status).toBe('interrupted');
    }
  });
});
