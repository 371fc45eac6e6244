import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import pg from 'pg';
import { runtimeSuite } from '../../support/runtime-suite.js';
import { within } from '../../support/within.js';

/** A TTL of 0.02 minutes: 1.2 s. */
const TTL_MINUTES = 0.02;

type Suite = ReturnType<typeof runtimeSuite>;

async function isGone(suite: Suite, threadId: string): Promise<boolean> {
  const response = await fetch(`${suite.runtime.url}/threads/${threadId}`, {
    headers: { 'x-api-key': suite.runtime.apiKey },
  });
  return response.status === 404;
}

/** The sweeper runs every second: the thread is gone within a few. */
async function expectGoneWithin(suite: Suite, threadId: string): Promise<void> {
  const poll = async (): Promise<void> => {
    while (!(await isGone(suite, threadId)))
      await new Promise((resolve) => setTimeout(resolve, 200));
  };
  await within(poll(), 15_000, `thread ${threadId} expired`);
}

describe('thread TTL: threads left alone past their TTL are deleted by the sweeper', () => {
  const suite = runtimeSuite(
    'runtime_thread_ttl',
    { maxRetries: 0 },
    { env: { BERTH_THREAD_SWEEP_SECONDS: '1' } },
  );

  const gone = (threadId: string): Promise<boolean> => isGone(suite, threadId);
  const expectGoneSoon = (threadId: string): Promise<void> => expectGoneWithin(suite, threadId);

  async function eventTypes(threadId: string): Promise<string[]> {
    const client = new pg.Client({ connectionString: suite.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ event_type: string }>(
        'select event_type from es_events where stream_id = $1 order by stream_position',
        [`thread-${threadId}`],
      );
      return rows.map((row) => row.event_type);
    } finally {
      await client.end();
    }
  }

  it('expires a thread with a TTL, with an event, and keeps one without', async () => {
    const expiring = await suite.client.threads.create({ ttl: TTL_MINUTES });
    const kept = await suite.client.threads.create();
    await suite.client.runs.wait(expiring.thread_id, 'custom', { input: { steps: 2 } });

    await expectGoneSoon(expiring.thread_id);

    expect(await eventTypes(expiring.thread_id)).toEqual([
      'ThreadCreated',
      'ThreadTtlSet',
      'ThreadExpired',
    ]);
    expect(await gone(kept.thread_id)).toBe(false);
    await expect(suite.client.threads.getState(expiring.thread_id)).rejects.toMatchObject({
      status: 404,
    });
    // Gone for runs and crons too, not only for reads.
    await expect(
      suite.client.runs.create(expiring.thread_id, 'custom', { input: { steps: 1 } }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      suite.client.crons.createForThread(expiring.thread_id, 'custom', { schedule: '0 9 * * *' }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('counts the TTL from the last touch: a run keeps the thread alive while it goes on', async () => {
    const thread = await suite.client.threads.create({
      ttl: { ttl: TTL_MINUTES, strategy: 'delete' },
    });
    const run = await suite.client.runs.create(thread.thread_id, 'custom', {
      input: { steps: 40, delay_ms: 100 },
    });
    await suite.client.runs.join(thread.thread_id, run.run_id);
    // The run took four seconds, three TTLs: the thread lived through it, and its TTL starts over.
    expect(await gone(thread.thread_id)).toBe(false);
    expect((await suite.client.runs.get(thread.thread_id, run.run_id)).status).toBe('success');
    await expectGoneSoon(thread.thread_id);
  });

  it('sets a TTL on an existing thread with PATCH, and refuses a bad one', async () => {
    const thread = await suite.client.threads.create();
    await suite.client.threads.update(thread.thread_id, { ttl: TTL_MINUTES });
    await expectGoneSoon(thread.thread_id);
    for (const ttl of [0, -5, 'soon', { ttl: 5, strategy: 'archive' }]) {
      const response = await fetch(`${suite.runtime.url}/threads`, {
        method: 'POST',
        headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ ttl: typeof ttl === 'object' ? ttl : { ttl } }),
      });
      expect(response.status).toBe(422);
    }
  });
});

describe("langgraph.json's checkpointer.ttl: the default TTL of the threads an application makes", () => {
  const suite = runtimeSuite(
    'runtime_default_ttl',
    { maxRetries: 0 },
    {
      env: { BERTH_THREAD_SWEEP_SECONDS: '1' },
      graphConfig: resolve('test/fixtures/compat-app/ttl-app.json'),
    },
  );

  it('gives threads created without a TTL the default one, and keeps a thread given its own', async () => {
    const defaulted = await suite.client.threads.create();
    const own = await suite.client.threads.create({ ttl: 60 });
    await expectGoneWithin(suite, defaulted.thread_id);
    expect(await isGone(suite, own.thread_id)).toBe(false);
    expect(suite.runtime.output()).toContain(
      '"checkpointer.ttl.sweep_interval_minutes" is not applied',
    );
  });
});
