import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { everyMethodCovered } from '../../../support/sdk-coverage.js';
import { apiRequest, runtimeSuite } from '../../../support/runtime-suite.js';

/** Every method of the official SDK's `client.crons`, with its options, and bad input. */
describe('client.crons: every method of the official SDK', () => {
  const suite = runtimeSuite('sdk_crons', { maxRetries: 0 });
  const crons = everyMethodCovered(() => suite.client.crons);

  const raw = apiRequest(suite);

  it('creates, updates, searches, counts and deletes crons, stateless and on a thread', async () => {
    const tag = randomUUID();
    const stateless = await crons().create('custom', {
      schedule: '0 9 * * 1-5',
      input: { steps: 1 },
      metadata: { tag, kind: 'digest' },
      config: { configurable: { user_id: 'u1' } },
      context: { region: 'eu' },
      interruptBefore: ['count'],
      multitaskStrategy: 'enqueue',
      onRunCompleted: 'keep',
      durability: 'exit',
      enabled: true,
    });
    expect(stateless).toMatchObject({
      schedule: '0 9 * * 1-5',
      thread_id: null,
      on_run_completed: 'keep',
      metadata: { tag, kind: 'digest' },
      enabled: true,
      payload: { input: { steps: 1 }, interrupt_before: ['count'], durability: 'exit' },
    });
    const next = new Date(stateless.next_run_date);
    expect(next.getUTCHours()).toBe(9);
    expect(next.getTime()).toBeGreaterThan(Date.now());

    const thread = await suite.client.threads.create();
    const onThread = await crons().createForThread(thread.thread_id, 'custom', {
      schedule: '*/15 * * * *',
      input: { steps: 2 },
      metadata: { tag, kind: 'sync' },
      checkpointDuring: false,
      ifNotExists: 'reject',
      enabled: false,
    });
    expect(onThread).toMatchObject({ thread_id: thread.thread_id, enabled: false });
    expect((onThread as { next_run_date: string | null }).next_run_date).toBeNull();

    const updated = await crons().update(onThread.cron_id, {
      schedule: '30 6 * * *',
      endTime: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      input: { steps: 3 },
      metadata: { extra: true },
      config: { tags: ['nightly'] },
      context: { region: 'us' },
      webhook: 'https://example.com/hook',
      interruptBefore: ['count'],
      interruptAfter: ['count'],
      onRunCompleted: 'keep',
      enabled: true,
    });
    expect(updated).toMatchObject({
      schedule: '30 6 * * *',
      enabled: true,
      metadata: { tag, kind: 'sync', extra: true },
      payload: { input: { steps: 3 }, webhook: 'https://example.com/hook' },
    });
    expect(new Date(updated.next_run_date ?? 0).getUTCHours()).toBe(6);

    const found = await crons().search({
      assistantId: stateless.assistant_id,
      limit: 10,
      offset: 0,
      sortBy: 'created_at',
      sortOrder: 'asc',
      select: ['cron_id', 'schedule'],
    });
    expect(found.map((cron) => cron.cron_id)).toEqual([stateless.cron_id, onThread.cron_id]);
    expect(Object.keys(found[0] ?? {}).sort()).toEqual(['cron_id', 'schedule']);
    const onlyThread = await crons().search({ threadId: thread.thread_id, enabled: true });
    expect(onlyThread.map((cron) => cron.cron_id)).toEqual([onThread.cron_id]);
    expect(await crons().count({ assistantId: stateless.assistant_id })).toBe(2);
    expect(await crons().count({ threadId: thread.thread_id })).toBe(1);

    await crons().delete(stateless.cron_id);
    expect(await crons().count({ assistantId: stateless.assistant_id })).toBe(1);
    await expect(crons().delete(stateless.cron_id)).rejects.toThrow(/404/);
    await crons().delete(onThread.cron_id);
  });

  it('deletes the crons of a deleted thread or assistant, as the reference server cascades', async () => {
    const thread = await suite.client.threads.create();
    const onThread = await crons().createForThread(thread.thread_id, 'custom', {
      schedule: '0 3 * * *',
    });
    const assistant = await suite.client.assistants.create({ graphId: 'custom' });
    const ofAssistant = await crons().create(assistant.assistant_id, { schedule: '0 4 * * *' });
    const kept = await crons().create('custom', { schedule: '0 5 * * *' });

    await suite.client.threads.delete(thread.thread_id);
    await suite.client.assistants.delete(assistant.assistant_id);

    const left = (await crons().search({ limit: 100 })).map((cron) => cron.cron_id);
    expect(left).toContain(kept.cron_id);
    expect(left).not.toContain(onThread.cron_id);
    expect(left).not.toContain(ofAssistant.cron_id);
    await crons().delete(kept.cron_id);
  });

  it('searches and counts by a graph id, as a create takes one (its default assistant)', async () => {
    const byGraph = await crons().create('custom', { schedule: '0 7 * * *' });
    const assistant = await suite.client.assistants.create({ graphId: 'custom' });
    const byAssistant = await crons().create(assistant.assistant_id, { schedule: '0 8 * * *' });

    const found = await crons().search({ assistantId: 'custom' });
    expect(found.map((cron) => cron.cron_id)).toEqual([byGraph.cron_id]);
    expect(found[0]?.assistant_id).toBe(byGraph.assistant_id);
    expect(await crons().count({ assistantId: 'custom' })).toBe(1);
    expect(await crons().count({ assistantId: byGraph.assistant_id.toUpperCase() })).toBe(1);
    expect(await crons().search({ assistantId: 'no-such-graph' })).toEqual([]);
    expect(await crons().count({ assistantId: 'no-such-graph' })).toBe(0);

    await crons().delete(byGraph.cron_id);
    await crons().delete(byAssistant.cron_id);
    await suite.client.assistants.delete(assistant.assistant_id);
  });

  it('refuses bad schedules, time zones, assistants and threads with a 4xx and stores nothing', async () => {
    const thread = await suite.client.threads.create();
    const cases: [string, unknown, number, RegExp][] = [
      [
        '/runs/crons',
        { assistant_id: 'custom', schedule: '61 * * * *' },
        422,
        /expected range 0-59/,
      ],
      ['/runs/crons', { assistant_id: 'custom', schedule: '* * * *' }, 422, /4 fields/],
      ['/runs/crons', { assistant_id: 'custom', schedule: '* * * * * *' }, 422, /6 fields/],
      ['/runs/crons', { assistant_id: 'custom', schedule: 'hello' }, 422, /fields/],
      [
        '/runs/crons',
        { assistant_id: 'custom', schedule: '* * * * *', timezone: 'Mars/Base' },
        422,
        /Unknown time zone/,
      ],
      [
        '/runs/crons',
        { assistant_id: 'custom', schedule: '* * * * *', end_time: 'soon' },
        422,
        /end_time/,
      ],
      [
        '/runs/crons',
        { assistant_id: 'no-such-graph', schedule: '* * * * *' },
        404,
        /No assistant/,
      ],
      ['/runs/crons', { assistant_id: 'custom' }, 422, /schedule/],
      [
        `/threads/${randomUUID()}/runs/crons`,
        { assistant_id: 'custom', schedule: '* * * * *' },
        404,
        /not found/i,
      ],
      [
        `/threads/${thread.thread_id}/runs/crons`,
        { assistant_id: 'custom', schedule: '* * * * *', on_completion: 'sideways' },
        422,
        /on_completion/,
      ],
    ];
    for (const [path, body, status, detail] of cases) {
      const response = await raw('POST', path, body);
      expect({ body, status: response.status }).toEqual({ body, status });
      expect(JSON.stringify(await response.json())).toMatch(detail);
    }
    expect(await crons().count()).toBe(0);
    expect((await raw('PATCH', `/runs/crons/${randomUUID()}`, { enabled: false })).status).toBe(
      404,
    );
    const cron = await crons().create('custom', { schedule: '0 0 1 1 *' });
    const badUpdate = await raw('PATCH', `/runs/crons/${cron.cron_id}`, { schedule: '0 0 32 1 *' });
    expect(badUpdate.status).toBe(422);
    expect((await crons().search()).map((c) => c.schedule)).toEqual(['0 0 1 1 *']);
    expect((await raw('DELETE', '/runs/crons/not-a-uuid')).status).toBe(404);
  });
});
