import { describe, expect, it } from '@jest/globals';
import { queryRows } from '../../support/database-query.js';
import { runtimeSuite } from '../../support/runtime-suite.js';

const QUESTION = { messages: [{ role: 'user', content: 'What is the weather in Oslo?' }] };
const RUNS = 50;
const WINDOW = 10;

interface Appended {
  readonly checkpoints: number;
  readonly chunks: number;
  readonly outcomes: number;
  readonly all: number;
}

describe('what a run on a long thread appends', () => {
  const suite = runtimeSuite('long_thread_storage');

  /** The JSON text appended after `after`, by what it is. */
  async function appendedSince(after: string): Promise<Appended> {
    const [row] = await queryRows<{
      checkpoints: string;
      chunks: string;
      outcomes: string;
      all: string;
    }>(
      suite.database.url,
      `select coalesce(sum(octet_length(data::text)) filter (where stream_id like 'checkpoints-%'), 0) as checkpoints,
              coalesce(sum(octet_length(data::text)) filter (where event_type = 'RunStepEmitted'), 0) as chunks,
              coalesce(sum(octet_length(data::text)) filter (where event_type = 'RunFinished'), 0) as outcomes,
              coalesce(sum(octet_length(data::text) + octet_length(metadata::text)), 0) as all
         from es_events where global_position > $1`,
      [after],
    );
    return {
      checkpoints: Number(row?.checkpoints ?? 0),
      chunks: Number(row?.chunks ?? 0),
      outcomes: Number(row?.outcomes ?? 0),
      all: Number(row?.all ?? 0),
    };
  }

  /**
   * The bytes every row of every table holds (the log, the read models, the queue), as
   * PostgreSQL stores them: a run's growth of it is what the run adds and what it changes.
   */
  async function storedBytes(): Promise<number> {
    const tables = await queryRows<{ name: string }>(
      suite.database.url,
      `select format('%I.%I', table_schema, table_name) as name from information_schema.tables
        where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
      [],
    );
    const sums = tables.map(
      ({ name }) => `select coalesce(sum(pg_column_size(t.*)), 0) as n from ${name} t`,
    );
    const [row] = await queryRows<{ n: string }>(
      suite.database.url,
      `select sum(n) as n from (${sums.join(' union all ')}) sizes`,
      [],
    );
    return Number(row?.n ?? 0);
  }

  async function head(): Promise<string> {
    const [row] = await queryRows<{ n: string }>(
      suite.database.url,
      'select coalesce(max(global_position), 0) as n from es_events',
      [],
    );
    return row?.n ?? '0';
  }

  // 50 runs on one growing thread and five counts of every table: about 15 s here, sized for a
  // machine four times as slow.
  it('appends what the run added, not what the thread holds', async () => {
    const thread = await suite.client.threads.create();
    const windows: Appended[] = [];
    const stored: number[] = [];
    let windowStart = await head();
    let storedBefore = await storedBytes();
    for (let run = 1; run <= RUNS; run += 1) {
      await suite.client.runs.wait(thread.thread_id, 'agent', { input: QUESTION });
      if (run % WINDOW === 0) {
        windows.push(await appendedSince(windowStart));
        windowStart = await head();
        const storedAfter = await storedBytes();
        stored.push(storedAfter - storedBefore);
        storedBefore = storedAfter;
      }
    }
    const [first, , , , last] = windows;
    const [storedFirst, , , , storedLast] = stored;
    if (!first || !last || !storedFirst || !storedLast) throw new Error('no windows measured');
    // Over every table (the thread's row is rewritten by each run, and grows by what it added).
    expect(storedLast).toBeLessThan(storedFirst * 1.5);
    // Each run adds 4 messages: the thread is 5 times longer in the last window than on average
    // in the first, and what its runs append to the log costs about the same. (A chain of deltas
    // ends with a whole value now and then, in either window.)
    expect(last.all).toBeLessThan(first.all * 1.5);
    expect(last.checkpoints).toBeLessThan(first.checkpoints * 2);
    expect(last.chunks).toBeLessThan(first.chunks * 1.5);
    expect(last.outcomes).toBeLessThan(first.all / 2);
  }, 120_000);
});
