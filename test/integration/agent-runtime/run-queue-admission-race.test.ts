import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { migrate } from '#libs/event-store';
import { RUN_MIGRATIONS } from '../../../apps/agent-runtime/src/run-records/run.entity.js';
import { RunQueue } from '../../../apps/agent-runtime/src/run-records/run-queue.js';
import { runCreatedFixture } from '../../../apps/agent-runtime/src/run-records/testing/run-created.fixture.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const ROUNDS = 1500;

/**
 * A run created on a thread just as a worker removes the thread's finished run from the queue.
 * The admission's fast path once looked at the thread's queue twice, in two snapshots: when the
 * removal committed between the looks it queued nothing and said it had, and the run waited
 * forever (found by `npm run bench:encryption`; about 6 rounds in 1,000 lost one here).
 */
describe('admitting a run while the thread’s last run leaves the queue', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let queue: RunQueue;

  beforeAll(async () => {
    database = await createTestDatabase('run_queue_admission_race');
    pool = new pg.Pool({ connectionString: database.url, max: 6 });
    await migrate(pool, 'run_queue_admission_race_migrations', RUN_MIGRATIONS);
    queue = new RunQueue(pool, () => Promise.resolve(false));
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it(`queues every run it admits (${ROUNDS} races)`, async () => {
    const lost: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const threadId = randomUUID();
      const finished = { ...runCreatedFixture, run_id: randomUUID(), thread_id: threadId };
      const next = { ...runCreatedFixture, run_id: randomUUID(), thread_id: threadId };
      await queue.enqueue(finished, 'enqueue');
      const { runs } = await queue.claim(`worker-${round}`, 30, 1);
      const claimed = runs.find((run) => run.runId === finished.run_id);
      if (!claimed) throw new Error(`round ${round}: the finished run was not claimed`);

      const [, cancelled] = await Promise.all([
        queue.complete(claimed, `worker-${round}`),
        queue.enqueue(next, 'enqueue'),
      ]);

      expect(cancelled).toEqual([]);
      const queued = await queue.queuedRuns({ runIds: [next.run_id], status: 'all' });
      if (queued.length === 0) lost.push(next.run_id);
      await pool.query('delete from run_queue where thread_id = $1', [threadId]);
    }
    expect(lost).toEqual([]);
  }, 120_000);
});
