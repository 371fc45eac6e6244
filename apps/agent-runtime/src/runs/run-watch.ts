import type { Logger } from '@nestjs/common';
import type { ClaimedRun, RunQueue } from '../run-records/run-queue.js';
import type { RunSignals } from '../run-records/run-signals.js';

/** Why a run stopped before its graph did. */
export type StopReason =
  | { readonly kind: 'cancel'; readonly action: 'interrupt' | 'rollback' }
  | { readonly kind: 'lost_lease' }
  | { readonly kind: 'shutdown' }
  | { readonly kind: 'timeout'; readonly seconds: number };

export class RunStopped extends Error {
  constructor(readonly reason: StopReason) {
    super(`run stopped: ${reason.kind}`);
  }
}

export interface RunWatchOptions {
  readonly queue: RunQueue;
  readonly signals: RunSignals;
  readonly workerId: string;
  readonly leaseSeconds: number;
  /** Seconds an attempt may run when the run names no `timeout_seconds`. */
  readonly defaultTimeoutSeconds: number;
  readonly logger: Logger;
}

/**
 * Watches what may stop a running attempt: the process shutting down, a cancel, the lease lost to
 * another worker (its heartbeat keeps it), the run's timeout. `signal` aborts with RunStopped.
 */
export class RunWatch {
  private readonly stop = new AbortController();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly deadline: NodeJS.Timeout;
  private readonly unregister: () => void;
  private readonly onShutdown = (): void => {
    this.halt({ kind: 'shutdown' });
  };

  constructor(
    private readonly claimed: ClaimedRun,
    private readonly shutdown: AbortSignal,
    private readonly options: RunWatchOptions,
  ) {
    const run = claimed.payload;
    shutdown.addEventListener('abort', this.onShutdown, { once: true });
    this.unregister = options.signals.registerRunning(run.run_id, (action) => {
      this.halt({ kind: 'cancel', action });
    });
    this.heartbeat = setInterval(() => void this.beat(), (options.leaseSeconds * 1000) / 3);
    const timeoutSeconds = run.timeout_seconds ?? options.defaultTimeoutSeconds;
    this.deadline = setTimeout(() => {
      this.halt({ kind: 'timeout', seconds: timeoutSeconds });
    }, timeoutSeconds * 1000);
  }

  get signal(): AbortSignal {
    return this.stop.signal;
  }

  end(): void {
    clearInterval(this.heartbeat);
    clearTimeout(this.deadline);
    this.unregister();
    this.shutdown.removeEventListener('abort', this.onShutdown);
  }

  private halt(reason: StopReason): void {
    if (!this.stop.signal.aborted) this.stop.abort(new RunStopped(reason));
  }

  private async beat(): Promise<void> {
    const { queue, workerId, leaseSeconds } = this.options;
    try {
      const lease = await queue.heartbeat(this.claimed, workerId, leaseSeconds);
      if (!lease.held) this.halt({ kind: 'lost_lease' });
      else if (lease.cancelAction) this.halt({ kind: 'cancel', action: lease.cancelAction });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.options.logger.warn(`Heartbeat of run ${this.claimed.runId} failed: ${reason}`);
    }
  }
}
