import { Counter, Gauge, Histogram } from 'prom-client';
import type { Pool } from 'pg';
import { LATENCY_BUCKETS, metricsRegistry } from '#libs/metrics';
import { RunObserver, type FinishedRun } from '../run-records/run-observers.js';
import type { RunCreatedData } from '../run-records/run.events.js';

const runsStarted = new Counter({
  name: 'berth_runs_started_total',
  help: 'Run attempts started by this process (a retry after a lost worker counts again)',
  labelNames: ['retry'],
  registers: [metricsRegistry],
});

const runsFinished = new Counter({
  name: 'berth_runs_finished_total',
  help: 'Runs this process finished, by status',
  labelNames: ['status'],
  registers: [metricsRegistry],
});

const runDuration = new Histogram({
  name: 'berth_run_duration_seconds',
  help: "A run's last attempt, from its start to its end, by status",
  labelNames: ['status'],
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

const queueWait = new Histogram({
  name: 'berth_run_queue_wait_seconds',
  help: 'Time a run waited in the queue before its first attempt started (from when it was due)',
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

/** Counts and times the runs this process finishes. */
export class RunMetrics extends RunObserver {
  runFinished({ finished, startedAt }: FinishedRun): void {
    runsFinished.inc({ status: finished.status });
    if (startedAt) {
      const seconds = (Date.parse(finished.finished_at) - Date.parse(startedAt)) / 1000;
      runDuration.observe({ status: finished.status }, Math.max(0, seconds));
    }
  }

  /** An attempt began: the first one also tells how long the run waited for a worker. */
  override runStarted(run: RunCreatedData, attempt: number, startedAt: string): void {
    runsStarted.inc({ retry: attempt > 1 ? 'true' : 'false' });
    if (attempt !== 1) return;
    const due = Date.parse(run.not_before ?? run.created_at);
    queueWait.observe(Math.max(0, (Date.parse(startedAt) - due) / 1000));
  }
}

/** The queue's depth, read from the database at each scrape: it is shared by every replica. */
export function measureRunQueue(pool: Pool): void {
  new Gauge({
    name: 'berth_run_queue_depth',
    help: 'Runs in the queue of this deployment (all replicas), by state; pending includes delayed runs',
    labelNames: ['state'],
    registers: [metricsRegistry],
    async collect() {
      const { rows } = await pool.query<{ status: string; count: string }>(
        'select status, count(*) as count from run_queue group by status',
      );
      this.set({ state: 'pending' }, 0);
      this.set({ state: 'running' }, 0);
      for (const row of rows) this.set({ state: row.status }, Number(row.count));
    },
  });
}
