import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { EventStore } from '#libs/event-store';
import { Application } from '../application/application.js';
import { RunQueue } from '../run-records/run-queue.js';
import { RunExecutor } from './run-executor.js';
import { RunObserver } from '../run-records/run-observers.js';
import { FinishedValuesMemory } from '../run-records/finished-values-memory.js';
import { RunSignals } from '../run-records/run-signals.js';
import { RunWorkerPool } from './run-worker-pool.js';

/** How this process executes runs; null in an API-only process. */
export interface RunWorkerSettings {
  readonly workerId: string;
  readonly concurrency: number;
  readonly leaseSeconds: number;
  readonly maxAttempts: number;
  /** Seconds an attempt may run when neither the run nor the deployment says. */
  readonly defaultTimeoutSeconds: number;
  /** The database whose notifications wake the workers. */
  readonly connectionString: string;
}

export const RUN_WORKER_SETTINGS = Symbol('RUN_WORKER_SETTINGS');

/** Wake-ups come by notification; this poll is the fallback, which also finds runs whose worker died. */
const POLL_INTERVAL_MS = 1000;

/**
 * The run workers of this process: they start claiming once the app has started, and on shutdown
 * hand the runs in progress back to the queue before the HTTP server closes.
 */
@Injectable()
export class RunWorkers implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly pool: RunWorkerPool | undefined;

  constructor(
    @Inject(RUN_WORKER_SETTINGS) settings: RunWorkerSettings | null,
    @Inject(EventStore) store: EventStore,
    @Inject(Application) application: Application,
    @Inject(RunQueue) queue: RunQueue,
    @Inject(RunSignals) signals: RunSignals,
    @Inject(RunObserver) observer: RunObserver,
    @Inject(FinishedValuesMemory) finishedValues: FinishedValuesMemory,
  ) {
    if (!settings) return;
    const executor = new RunExecutor(
      store,
      application,
      queue,
      signals,
      {
        workerId: settings.workerId,
        leaseSeconds: settings.leaseSeconds,
        maxAttempts: settings.maxAttempts,
        defaultTimeoutSeconds: settings.defaultTimeoutSeconds,
        langgraphVersion: application.langgraphVersion,
      },
      observer,
      finishedValues,
    );
    this.pool = new RunWorkerPool(queue, executor, signals, {
      workerId: settings.workerId,
      concurrency: settings.concurrency,
      leaseSeconds: settings.leaseSeconds,
      pollIntervalMs: POLL_INTERVAL_MS,
      connectionString: settings.connectionString,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.pool?.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.stop();
  }
}
