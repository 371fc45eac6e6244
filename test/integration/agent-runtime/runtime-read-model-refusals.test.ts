import { describe, expect, it } from '@jest/globals';
import { apiRequest, runtimeSuite } from '../../support/runtime-suite.js';

/**
 * What the read models cannot hold is refused (422, naming the field) before it reaches the log,
 * and nulls the official SDK may send are taken as absent: no request stops a projection.
 */
describe('the runtime refuses what its read models cannot hold', () => {
  const suite = runtimeSuite('read_model_refusals');
  const request = apiRequest(suite);

  async function answer(method: string, path: string, body?: unknown) {
    const response = await request(method, path, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('refuses a cron PATCH that disables it and nulls its schedule, and crons keep working', async () => {
    const created = await answer('POST', '/runs/crons', {
      assistant_id: 'agent',
      schedule: '0 0 1 1 *',
    });
    expect(created.status).toBe(200);
    const cronId = String(created.body.cron_id);

    const refused = await answer('PATCH', `/runs/crons/${cronId}`, {
      enabled: false,
      schedule: null,
    });
    expect(refused).toEqual({
      status: 422,
      body: { detail: expect.stringMatching(/^schedule must be a string, not null/) as unknown },
    });
    const nullEnabled = await answer('PATCH', `/runs/crons/${cronId}`, { enabled: null });
    expect(nullEnabled.status).toBe(422);
    expect(String(nullEnabled.body.detail)).toMatch(/^enabled /);

    const started = Date.now();
    const search = await request('POST', '/runs/crons/search', {});
    expect(search.status).toBe(200);
    expect(await search.json()).toEqual([
      expect.objectContaining({ cron_id: cronId, schedule: '0 0 1 1 *', enabled: true }),
    ]);
    const disabled = await answer('PATCH', `/runs/crons/${cronId}`, { enabled: false });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, next_run_date: null });
    expect((await answer('POST', '/runs/crons/search', {})).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await answer('GET', '/ok')).body).toEqual({ ok: true });
  });

  it('takes null as absent in searches, history and state updates', async () => {
    expect((await answer('POST', '/assistants/search', { name: null })).status).toBe(200);
    expect((await answer('POST', '/assistants/count', { name: null })).status).toBe(200);
    const thread = await answer('POST', '/threads', {});
    const threadId = String(thread.body.thread_id);
    expect((await answer('POST', `/threads/${threadId}/history`, { before: null })).status).toBe(
      200,
    );
    const updated = await answer('POST', `/threads/${threadId}/state`, {
      values: { messages: [] },
      as_node: null,
    });
    expect(updated.status).toBeLessThan(500);
    expect(updated.status === 200 || typeof updated.body.detail === 'string').toBe(true);
  });
});
