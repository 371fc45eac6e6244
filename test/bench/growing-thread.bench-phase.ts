import { millis, percentile, ratio, type Row } from './bench-support.js';
import { timeGrowingThreadInProcess } from './in-process-langgraph.js';
import { queryRows } from '../support/database-query.js';

/** Runs one after another on one thread: each adds its 4 messages to what the next one reads. */
const GROWING_RUNS = 60;
/** The first and the last this many runs are compared. */
const WINDOW = 10;

async function logHead(databaseUrl: string): Promise<number> {
  return single(databaseUrl, 'select coalesce(max(global_position), 0) as n from es_events', []);
}

/** The JSON text of the events appended after `after`: what the log grew by. */
async function bytesAppendedSince(databaseUrl: string, after: number): Promise<number> {
  return single(
    databaseUrl,
    'select coalesce(sum(octet_length(data::text)), 0) as n from es_events where global_position > $1',
    [after],
  );
}

async function single(databaseUrl: string, sql: string, values: unknown[]): Promise<number> {
  const [row] = await queryRows<{ n: string }>(databaseUrl, sql, values);
  return Number(row?.n ?? 0);
}

/**
 * A conversation that grows: Berth's runs/wait on one thread against LangGraph's own invoke on one
 * thread (MemorySaver, in this process), the first runs and the last, and how much Berth's event
 * log grows by a run once the thread is long. Nothing else may run on Berth meanwhile.
 */
export async function growingThreadBench(options: {
  readonly databaseUrl: string;
  readonly input: unknown;
  readonly newThread: () => Promise<string>;
  readonly runOnce: (threadId: string) => Promise<void>;
}): Promise<Row[]> {
  const threadId = await options.newThread();
  const berth: number[] = [];
  let lastRunsFrom = 0;
  for (let i = 0; i < GROWING_RUNS; i += 1) {
    if (i === GROWING_RUNS - WINDOW) lastRunsFrom = await logHead(options.databaseUrl);
    const started = performance.now();
    await options.runOnce(threadId);
    berth.push(performance.now() - started);
  }
  const bytesPerRun = (await bytesAppendedSince(options.databaseUrl, lastRunsFrom)) / WINDOW;
  const inProcess = await timeGrowingThreadInProcess(options.input, GROWING_RUNS);

  const first = (times: readonly number[]): number => percentile(times.slice(0, WINDOW), 50);
  const last = (times: readonly number[]): number => percentile(times.slice(-WINDOW), 50);
  const berthGrowth = last(berth) / first(berth);
  const inProcessGrowth = last(inProcess) / first(inProcess);
  return [
    {
      metric: `one thread, runs 1-${WINDOW}, p50 (Berth: runs/wait; in-process: invoke)`,
      berth: millis(first(berth)),
      peer: millis(first(inProcess)),
      ratio: ratio(first(inProcess), first(berth)),
    },
    {
      metric: `one thread, runs ${GROWING_RUNS - WINDOW + 1}-${GROWING_RUNS} (${4 * GROWING_RUNS} messages at the end), p50`,
      berth: millis(last(berth)),
      peer: millis(last(inProcess)),
      ratio: ratio(last(inProcess), last(berth)),
    },
    {
      metric: `  how much slower the last runs are than the first`,
      berth: `${berthGrowth.toFixed(1)}x`,
      peer: `${inProcessGrowth.toFixed(1)}x`,
      ratio: '',
    },
    {
      metric: `  event log per run then (JSON text of its events: checkpoints, chunks, outcome)`,
      berth: `${Math.round(bytesPerRun / 1024)} KiB`,
      peer: '-',
      ratio: '',
    },
  ];
}
