import { hostname } from 'node:os';
import { uuidv7 } from '#libs/event-store';
import { splitConnectionBudget, type Persistence, type PoolSizes } from '#libs/persistence';
import { RunQueue } from './run-records/run-queue.js';
import { runHasFinished } from './run-records/run-progress.js';
import { RunObservers } from './run-records/run-observers.js';
import { RunSignals } from './run-records/run-signals.js';
import { RunMetrics } from './runs/run-metrics.js';
import { RunTraceReporter } from './runs/run-trace-reporter.js';
import type { RuntimeConfig } from './runtime.config.js';
import type { RuntimeParts } from './runtime.module.js';

/** What the runtime's modules are given: what this process opened, and its settings. */
export function runtimeParts(
  config: RuntimeConfig,
  persistence: Persistence,
  opened: Pick<RuntimeParts, 'application' | 'routes' | 'customAuth' | 'ui'>,
): RuntimeParts {
  const tracing = config.tracing ? new RunTraceReporter(config.tracing) : undefined;
  const workerId = `${hostname()}:${process.pid}:${uuidv7().slice(-8)}`;
  return {
    persistence,
    ...opened,
    queue: new RunQueue(persistence.pool, (runId) => runHasFinished(persistence.eventStore, runId)),
    signals: new RunSignals(),
    runObserver: new RunObservers(tracing ? [new RunMetrics(), tracing] : [new RunMetrics()]),
    runWorkers: config.runWorkers
      ? {
          workerId,
          concurrency: config.workerConcurrency,
          leaseSeconds: config.leaseSeconds,
          maxAttempts: config.maxAttempts,
          defaultTimeoutSeconds: config.runTimeoutSeconds,
          connectionString: persistence.database.url,
        }
      : null,
    reloadOnChange: config.reloadOnChange,
    threadSweepSeconds: config.threadSweepSeconds,
    storeSweepSeconds: config.storeSweepSeconds,
    cronPollSeconds: config.cronPollSeconds,
    cronClockAheadSeconds: config.cronClockAheadSeconds,
  };
}

/**
 * Within `BERTH_DATABASE_CONNECTIONS`, the pools get what the LISTEN connections leave: the event
 * log's (one) and, in a process that executes runs, the run workers' (one).
 */
export function poolSizesOf(config: RuntimeConfig): PoolSizes | undefined {
  if (config.databaseConnections === undefined) return undefined;
  return splitConnectionBudget(config.databaseConnections, config.runWorkers ? 2 : 1);
}
