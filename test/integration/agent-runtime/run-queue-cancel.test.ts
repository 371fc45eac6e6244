import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { migrate } from '#libs/event-store';
import { RUN_MIGRATIONS } from '../../../apps/agent-runtime/src/run-records/run.entity.js';
import { RunQueue } from '../../../apps/agent-runtime/src/run-records/run-queue.js';
import type { RunCreatedData } from '../../../apps/agent-runtime/src/run-records/run.events.js';
import { runCreatedFixture } from '../../../apps/agent-runtime/src/run-records/testing/run-created.fixture.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const aRun = (): RunCreatedData => ({
  ...runCreatedFixture,
  run_id: randomUUID(),
  thread_id: randomUUID(),
});

describe('cancelling a run that waits in the queue', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let queue: RunQueue;

  beforeAll(async () => {
    database = await createTestDatabase('run_queue_cancel');
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    await migrate(pool, 'run_queue_cancel_migrations', RUN_MIGRATIONS);
    queue = new RunQueue(pool, () => Promise.resolve(false));
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const statusOf = async (runId: string): Promise<string | undefined> => {
    const { rows } = await pool.query<{ status: string }>(
      'select status from run_queue where run_id = $1',
      [runId],
    );
    return rows[0]?.status;
  };

  it('keeps the run queued, for a worker to run, when its end could not be recorded', async () => {
    const run = aRun();
    await queue.enqueue(run, 'reject');

    const refused = new Error('the log refused the append');
    await expect(queue.cancel(run.run_id, 'interrupt', () => Promise.reject(refused))).rejects.toBe(
      refused,
    );

    expect(await statusOf(run.run_id)).toBe('pending');
    const { runs } = await queue.claim('worker-a', 30, 10);
    expect(runs.map((claimed) => claimed.runId)).toContain(run.run_id);
  });

  it('holds the run from every worker while its end is being recorded, then removes it', async () => {
    const run = aRun();
    await queue.enqueue(run, 'reject');
    let claimedMeanwhile: readonly string[] | undefined;

    const outcome = await queue.cancel(run.run_id, 'interrupt', async (payload) => {
      expect(payload.run_id).toBe(run.run_id);
      const { runs } = await queue.claim('worker-b', 30, 10);
      claimedMeanwhile = runs.map((claimed) => claimed.runId);
    });

    expect(outcome).toEqual({ kind: 'removed_pending', payload: run });
    expect(claimedMeanwhile).not.toContain(run.run_id);
    expect(await statusOf(run.run_id)).toBeUndefined();
  });

  it('tells a running run to stop, and answers absent for a run no longer queued', async () => {
    const run = aRun();
    await queue.enqueue(run, 'reject');
    const { runs } = await queue.claim('worker-c', 30, 10);
    expect(runs.map((claimed) => claimed.runId)).toContain(run.run_id);
    let recorded = false;
    const record = (): Promise<void> => {
      recorded = true;
      return Promise.resolve();
    };

    expect(await queue.cancel(run.run_id, 'rollback', record)).toEqual({
      kind: 'signalled_running',
    });
    expect(await queue.cancel(randomUUID(), 'interrupt', record)).toEqual({ kind: 'absent' });
    expect(recorded).toBe(false);
  });
});
