import { startRuntime, type RuntimeProcess } from '../support/runtime-process.js';
import { queryRows } from '../support/database-query.js';
import { openBenchDatabase, rate, ratio, type Row } from './bench-support.js';

export interface RunsTarget {
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ScaleOutResult {
  readonly rows: Row[];
  /** Runs/s through one API process with 1, then 2 worker processes on the same database. */
  readonly runsPerSecond: readonly [number, number];
  /** Runs that an attempt started more than once (a run executed twice): must be 0. */
  readonly startedTwice: number;
  readonly runs: number;
}

const env = { EVENTSTORE_URL: '' };

/**
 * Scale-out on one database: an API-only process (`BERTH_RUN_WORKERS=false`) takes the runs,
 * worker processes on the same database execute them. `workload` is measured with one worker
 * process, then again with a second one started beside it; then the log is checked for any run
 * started twice.
 */
export async function scaleOutBench(
  workload: (target: RunsTarget) => Promise<number>,
): Promise<ScaleOutResult> {
  const database = await openBenchDatabase('scale');
  const processes: RuntimeProcess[] = [];
  try {
    const api = await startRuntime({
      databaseUrl: database.url,
      env: { ...env, BERTH_RUN_WORKERS: 'false' },
    });
    processes.push(api);
    processes.push(await startRuntime({ databaseUrl: database.url, env }));
    const target: RunsTarget = {
      name: 'berth (API process)',
      url: api.url,
      headers: { 'x-api-key': api.apiKey },
    };
    const one = await workload(target);
    processes.push(await startRuntime({ databaseUrl: database.url, env }));
    const two = await workload(target);
    const [twice] = await queryRows<{ count: string }>(
      database.url,
      `select count(*) from (
         select stream_id from es_events where event_type = 'RunStarted'
          group by stream_id having count(*) > 1
       ) repeated`,
    );
    const [runs] = await queryRows<{ count: string }>(
      database.url,
      `select count(*) from es_events where event_type = 'RunCreated'`,
    );
    const startedTwice = Number(twice?.count ?? 0);
    return {
      runsPerSecond: [one, two],
      startedTwice,
      runs: Number(runs?.count ?? 0),
      rows: [
        {
          metric: 'runs/s, API process + 1 worker process (same workload)',
          berth: rate(one),
          peer: '-',
          ratio: '',
        },
        {
          metric: 'runs/s, API process + 2 worker processes',
          berth: rate(two),
          peer: '-',
          ratio: `${ratio(two, one)} of 1 worker`,
        },
      ],
    };
  } finally {
    await Promise.allSettled(processes.map((process) => process.stop()));
    await database.close();
  }
}
