import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { eventually } from '../control-plane/api-audit.js';
import { apiRequest, runtimeSuite } from '../../support/runtime-suite.js';

interface Answer {
  verified: boolean;
  events: number;
  deleted?: number;
  head?: string;
  pending?: number;
  break?: { kind: string; position: number; event_id?: string };
  summary: string;
}

describe("the runtime's GET /audit/verify", () => {
  // With a master key, deleting a thread erases it: its key is destroyed, its events stay as
  // ciphertext (docs/operations.md), which the chain sealed as such.
  const suite = runtimeSuite('runtime_audit', undefined, {
    env: { BERTH_MASTER_KEY: randomBytes(32).toString('hex') },
  });

  const verify = async (): Promise<Answer> => {
    const response = await apiRequest(suite)('GET', '/audit/verify');
    expect(response.status).toBe(200);
    return (await response.json()) as Answer;
  };

  /** Once every stored event is sealed: other suites' transactions on the server can delay it. */
  const sealed = (): Promise<Answer> =>
    eventually('every event sealed', async () => {
      const answer = await verify();
      return answer.verified && answer.pending === 0 ? answer : undefined;
    });

  it('refuses a request without the key', async () => {
    const response = await fetch(`${suite.runtime.url}/audit/verify`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ detail: expect.any(String) });
  });

  it('verifies a log whose thread was run, then erased, then finds an edit', async () => {
    const thread = await suite.client.threads.create();
    await suite.client.runs.wait(thread.thread_id, 'agent', {
      input: { messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] },
    });
    const before = await sealed();
    expect(before.events).toBeGreaterThan(0);

    // Erasing the thread deletes its checkpoint stream (sealed events the chain accounts for) and
    // destroys the key of the rest, which stays in the log unchanged.
    await suite.client.threads.delete(thread.thread_id);
    const after = await sealed();
    expect(after.deleted).toBeGreaterThan(0);
    expect(after.events).toBeGreaterThanOrEqual(before.events);
    expect(after.summary).toMatch(/^verified \d+ events up to position \d+ \(\d+ of them deleted/);

    const pool = new pg.Pool({ connectionString: suite.database.url, max: 1 });
    const { rows: kept } = await pool.query(
      `select 1 from es_events e join es_chain c using (event_id)
        where e.stream_id like '%' || $1 || '%'`,
      [thread.thread_id],
    );
    expect(kept.length).toBeGreaterThan(0);
    let last: { position: string; event_id: string } | undefined;
    try {
      ({
        rows: [last],
      } = await pool.query<{ position: string; event_id: string }>(
        `select c.position, c.event_id from es_chain c join es_events e using (event_id)
          order by c.position desc limit 1`,
      ));
      if (!last) throw new Error('no sealed event left');
      await pool.query(`update es_events set metadata = '{"forged": true}' where event_id = $1`, [
        last.event_id,
      ]);
    } finally {
      await pool.end();
    }
    expect(await verify()).toMatchObject({
      verified: false,
      break: { kind: 'edited', position: Number(last.position), event_id: last.event_id },
    });
  });
});
