import { describe, expect, it, jest } from '@jest/globals';
import { Scrape } from '../../support/prometheus.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

jest.setTimeout(60_000);

/**
 * What one run of the example agent (a new thread, then runs/wait) costs the database, counted
 * in the runtime (`berth_database_*_total`). The budgets are the figures last measured (issue 12:
 * 155 transactions before log reads were coalesced, 81 and 114 statements after; 45 and 74 once
 * runners read each append once, checkpoints moved by compare-and-set, a lone process stopped
 * notifying and claims said when the next run is due), with room for background work: the
 * counters are the process's, and fresh-clone CI runs of one commit measured from 45.2 to 51.9
 * transactions and 74.3 to 80.7 statements; 44.4 to 44.9 and 66.4 to 67.3 since the admission
 * lock, thread commands and projection rows stopped reading what they hold, and 40.1 and 62.4
 * since a run's waiter stopped reading the chunks of its own process, measured locally, so the
 * statement budget keeps the same room above it. Projection batches became one statement each:
 * 41.3 to 49.3 transactions and 43.3 to 51.3 statements, measured locally (61.6 to 68.6 before,
 * on the same machine); 37.8 to 44.9 and 39.8 to 46.9 once projections slept through the appends
 * they do not fold; 34.6 to 38.9 and 36.6 to 40.9 once a run took one claim, started without
 * reading its stream back and new rows were not read before they were made; 30.7 and 32.7 once
 * projections woken together shared their log read; 26.6 and 28.6 once a run's checkpoints
 * trailed behind its steps; 25.8 and 27.8 once runs/wait followed a new run from its first chunk;
 * 24.5 to 24.8 and 26.5 to 26.8 (29.9 and 31.9 in one run of four: background work) once a run
 * was queued in one statement and read its final state from what it wrote; 23.6 to 24.0 (as
 * many statements as transactions) once a run's chunks and checkpoints of one turn of the event
 * loop went in one append; 23.4 and 23.6 (28.2 in one run of three, beside another suite) once
 * checkpoints and values chunks were stored as what changed, when the budgets came down to 31;
 * 24.8 once the threads projection read a run's chunks to make its outcome's values whole.
 * A change that adds round trips to the run path fails here.
 */
const TRANSACTIONS_PER_RUN_BUDGET = 31;
const STATEMENTS_PER_RUN_BUDGET = 31;
const RUNS = 12;

describe('database work per run', () => {
  const suite = runtimeSuite('database-work');

  const runOnce = async (): Promise<void> => {
    const thread = await suite.client.threads.create();
    await suite.client.runs.wait(thread.thread_id, 'agent', {
      input: { messages: [{ role: 'user', content: 'weather in Oslo?' }] },
    });
  };

  it('stays within the transactions and statements measured for the run path', async () => {
    for (let index = 0; index < 3; index += 1) await runOnce();
    const scrape = () => Scrape.of(suite.runtime.url, suite.runtime.apiKey);
    const before = await scrape();
    for (let index = 0; index < RUNS; index += 1) await runOnce();
    const after = await scrape();
    const perRun = (name: string) => (after.value(name) - before.value(name)) / RUNS;
    const transactions = perRun('berth_database_transactions_total');
    const statements = perRun('berth_database_statements_total');
    console.log(
      `database work per run: ${transactions.toFixed(1)} transactions, ${statements.toFixed(1)} statements`,
    );
    expect(transactions).toBeGreaterThan(5);
    expect(transactions).toBeLessThanOrEqual(TRANSACTIONS_PER_RUN_BUDGET);
    expect(statements).toBeLessThanOrEqual(STATEMENTS_PER_RUN_BUDGET);
  });
});
