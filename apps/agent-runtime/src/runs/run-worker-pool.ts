import { Logger } from '@nestjs/common';
import { setMaxListeners } from 'node:events';
import pg from 'pg';
import { MAYBE_OTHERS_PENDING, type RunEnd, type RunExecutor } from './run-executor.js';
import {
  type ClaimedRun,
  parseCancelNotice,
  RUN_CANCEL_CHANNEL,
  RUN_WAKE_CHANNEL,
  type RunQueue,
} from '../run-records/run-queue.js';
import type { RunSignals } from '../run-records/run-signals.js';
import { AdmissionControl } from './admission/admission-control.js';
import { admissionSettingsOf } from './admission/admission-decider.js';

export interface RunWorkerPoolOptions {
  readonly workerId: string;
  /** The most runs at once; how many it takes below that follows the load (admission/). */
  readonly concurrency: number;
  readonly leaseSeconds: number;
  /** The fallback when no wake-up arrives: runs whose worker died are found this way too. */
  readonly pollIntervalMs: number;
  readonly connectionString: string;
}

/**
 * Claims runs as soon as they are queued (woken in-process by the API, or by a PostgreSQL
 * notification from another process) and executes as many at once as the process bears (its
 * event loop and heap, admission/), up to `concurrency`.
 */
export class RunWorkerPool {
  private readonly logger = new Logger('workers');
  private readonly shutdown = new AbortController();
  private readonly active = new Set<Promise<void>>();
  /** Asked to claim while every worker was busy: the next run to end looks again. */
  private claimDeferred = false;
  private pumping = false;
  private pumpAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private listener: pg.Client | undefined;
  private unlisten: (() => void) | undefined;
  private readonly admission: AdmissionControl;

  constructor(
    private readonly queue: RunQueue,
    private readonly executor: RunExecutor,
    private readonly signals: RunSignals,
    private readonly options: RunWorkerPoolOptions,
  ) {
    // Each run in progress listens to the pool's shutdown until it ends: up to `concurrency` at once.
    setMaxListeners(options.concurrency + 1, this.shutdown.signal);
    this.admission = new AdmissionControl(
      admissionSettingsOf(options.concurrency),
      () => ({ active: this.active.size, held: this.claimDeferred }),
      () => {
        this.pump();
      },
    );
  }

  async start(): Promise<void> {
    this.admission.start();
    this.unlisten = this.signals.onWake(() => {
      this.pump();
    });
    this.timer = setInterval(() => {
      this.pump();
    }, this.options.pollIntervalMs);
    await this.listen();
    this.pump();
  }

  /** Stops claiming, and hands the runs in progress back to the queue for another worker. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.dueTimer);
    this.admission.stop();
    this.unlisten?.();
    this.shutdown.abort();
    await Promise.allSettled([...this.active]);
    await this.listener?.end().catch(() => undefined);
  }

  private pump(): void {
    if (this.shutdown.signal.aborted) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void this.claimWhileFree()
      .catch((error: unknown) => {
        this.logger.error(`Claiming runs failed: ${String(error)}`);
      })
      .finally(() => {
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  /**
   * Claims as many runs as there are free slots under the admission limit, in one statement. A claim that comes back
   * short found nothing else to start: the next look is for a wake, a due delayed run, a run of
   * this pool ending while others wait, or the poll.
   */
  private async claimWhileFree(): Promise<void> {
    while (!this.shutdown.signal.aborted) {
      const free = this.admission.limit - this.active.size;
      if (free <= 0) {
        this.claimDeferred = true;
        return;
      }
      const { runs, dueInMs } = await this.queue.claim(
        this.options.workerId,
        this.options.leaseSeconds,
        free,
      );
      for (const claimed of runs) this.begin(claimed);
      if (runs.length < free) {
        this.claimDeferred = false;
        this.wakeWhenDue(dueInMs);
        return;
      }
    }
  }

  private begin(claimed: ClaimedRun): void {
    const running = this.executor
      .execute(claimed, this.shutdown.signal)
      .catch((error: unknown): RunEnd => {
        this.logger.error(`Run ${claimed.runId} failed: ${String(error)}`);
        return MAYBE_OTHERS_PENDING;
      })
      .then((end) => {
        this.active.delete(running);
        this.admission.noteActive(this.active.size);
        // A wake that came while every worker was busy is answered now.
        if (end.othersPending || this.claimDeferred) this.pump();
      });
    this.active.add(running);
    this.admission.noteActive(this.active.size);
  }

  /** Delayed runs start when they fall due, not at the next poll. */
  private wakeWhenDue(dueInMs: number | undefined): void {
    if (dueInMs === undefined) return;
    clearTimeout(this.dueTimer);
    this.dueTimer = setTimeout(
      () => {
        this.pump();
      },
      Math.max(1, dueInMs),
    );
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString });
    client.on('error', (error) => {
      this.logger.warn(`Run notifications lost: ${error.message}`);
    });
    client.on('notification', (message) => {
      if (message.channel === RUN_WAKE_CHANNEL && !this.queue.isOwnWake(message.payload ?? '')) {
        this.pump();
      }
      if (message.channel === RUN_CANCEL_CHANNEL && message.payload) {
        const { runId, action } = parseCancelNotice(message.payload);
        this.signals.cancelIfRunningHere(runId, action);
      }
    });
    await client.connect();
    await client.query(`listen ${RUN_WAKE_CHANNEL}`);
    await client.query(`listen ${RUN_CANCEL_CHANNEL}`);
    this.listener = client;
  }
}
