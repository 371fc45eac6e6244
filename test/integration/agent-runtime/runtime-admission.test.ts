import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';

jest.setTimeout(120_000);

/** Runs at once, each waiting as a run waits on a model: far more than the 16 a process once took. */
const RUNS = 80;
const WAIT_MS = 8_000;

/** One gauge or counter of the runtime's /metrics (0 when it has no value yet). */
async function metric(runtime: RuntimeProcess, name: string): Promise<number> {
  const response = await fetch(`${runtime.url}/metrics`, {
    headers: { 'x-api-key': runtime.apiKey },
  });
  const lines = (await response.text()).split('\n').filter((row) => row.startsWith(name));
  return lines.reduce((sum, row) => sum + Number(row.split(' ').at(-1)), 0);
}

describe('admission: how many runs a process takes at once follows what it bears', () => {
  let database: TestDatabase;
  let runtime: RuntimeProcess;
  let client: Client;

  beforeAll(async () => {
    database = await createTestDatabase('admission');
    runtime = await startRuntime({ databaseUrl: database.url });
    client = new Client({ apiUrl: runtime.url, apiKey: runtime.apiKey });
  });

  afterAll(async () => {
    await runtime.stop();
    await database.drop();
  });

  it('takes every waiting run at once while its event loop keeps up, and finishes them all', async () => {
    const threads = await Promise.all(Array.from({ length: RUNS }, () => client.threads.create()));
    const runs = await Promise.all(
      threads.map((thread) =>
        client.runs.create(thread.thread_id, 'custom', {
          input: { steps: 1, delay_ms: WAIT_MS },
        }),
      ),
    );

    // Every run is in progress at one moment, before any ended: none waited in the queue behind
    // a fixed count of slots.
    let inProgress = 0;
    while (inProgress < RUNS) {
      expect(await metric(runtime, 'berth_runs_finished_total')).toBe(0);
      inProgress = await metric(runtime, 'berth_runs_in_progress');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const finished = await Promise.all(
      runs.map((run) => client.runs.join(run.thread_id, run.run_id)),
    );
    expect(finished).toHaveLength(RUNS);
    const statuses = await Promise.all(
      runs.map((run) => client.runs.get(run.thread_id, run.run_id)),
    );
    expect(statuses.map((run) => run.status)).toEqual(Array(RUNS).fill('success'));
  });

  it('keeps to BERTH_WORKER_CONCURRENCY as a cap', async () => {
    const capped = await startRuntime({
      databaseUrl: database.url,
      env: { BERTH_WORKER_CONCURRENCY: '3', BERTH_RUN_WORKERS: 'true' },
    });
    try {
      expect(await metric(capped, 'berth_run_admission_limit')).toBe(3);
    } finally {
      await capped.stop();
    }
  });
});
