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

/** What the log grew by between two heads: the JSON text of the events, by kind of stream. */
interface Growth {
  readonly checkpoints: number;
  readonly runs: number;
  readonly other: number;
}

async function bytesAppendedBetween(
  databaseUrl: string,
  after: number,
  upTo: number,
): Promise<Growth> {
  const rows = await queryRows<{ kind: string; n: string }>(
    databaseUrl,
    `select case when stream_id like 'checkpoints-%' then 'checkpoints'
                 when stream_id like 'run-%' then 'runs' else 'other' end as kind,
            coalesce(sum(octet_length(data::text)), 0) as n
       from es_events where global_position > $1 and global_position <= $2 group by 1`,
    [after, upTo],
  );
  const of = (kind: string): number => Number(rows.find((row) => row.kind === kind)?.n ?? 0);
  return { checkpoints: of('checkpoints'), runs: of('runs'), other: of('other') };
}

const totalOf = (growth: Growth): number => growth.checkpoints + growth.runs + growth.other;

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
  const firstRunsFrom = await logHead(options.databaseUrl);
  let firstRunsTo = 0;
  let lastRunsFrom = 0;
  for (let i = 0; i < GROWING_RUNS; i += 1) {
    if (i === WINDOW) firstRunsTo = await logHead(options.databaseUrl);
    if (i === GROWING_RUNS - WINDOW) lastRunsFrom = await logHead(options.databaseUrl);
    const started = performance.now();
    await options.runOnce(threadId);
    berth.push(performance.now() - started);
  }
  const lastRunsTo = await logHead(options.databaseUrl);
  const firstGrowth = await bytesAppendedBetween(options.databaseUrl, firstRunsFrom, firstRunsTo);
  const lastGrowth = await bytesAppendedBetween(options.databaseUrl, lastRunsFrom, lastRunsTo);
  const kib = (bytes: number): string => `${(bytes / WINDOW / 1024).toFixed(1)} KiB`;
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
      metric: `  event log per run, runs 1-${WINDOW} (JSON text of its events: checkpoints, chunks, outcome)`,
      berth: kib(totalOf(firstGrowth)),
      peer: '-',
      ratio: '',
    },
    {
      metric: `  event log per run, runs ${GROWING_RUNS - WINDOW + 1}-${GROWING_RUNS}`,
      berth: kib(totalOf(lastGrowth)),
      peer: '-',
      ratio: `${(totalOf(lastGrowth) / Math.max(1, totalOf(firstGrowth))).toFixed(2)}x runs 1-${WINDOW}`,
    },
    {
      metric: `    of which checkpoints / the run's stream / other`,
      berth: `${kib(lastGrowth.checkpoints)} / ${kib(lastGrowth.runs)} / ${kib(lastGrowth.other)}`,
      peer: '-',
      ratio: `runs 1-${WINDOW}: ${kib(firstGrowth.checkpoints)} / ${kib(firstGrowth.runs)} / ${kib(firstGrowth.other)}`,
    },
  ];
}
