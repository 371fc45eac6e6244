import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { PeriodicPass } from '../common/periodic-pass.js';
import { CronsService } from './crons.service.js';

/** How often each replica looks for crons that are due (milliseconds). */
export const CRON_POLL_INTERVAL_MS = Symbol('CRON_POLL_INTERVAL_MS');
/**
 * How far ahead of the machine's clock the scheduler's "now" is (milliseconds; 0). A test sets it
 * on a replica it starts again, so the tick missed while none ran is already past.
 */
export const CRON_CLOCK_AHEAD_MS = Symbol('CRON_CLOCK_AHEAD_MS');

/**
 * Fires the crons that are due, on every replica: at start (the catch-up after a stop) and then
 * every poll. Which replica fires a tick does not matter; that it fires once is decided on the
 * cron's stream.
 */
@Injectable()
export class CronScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('crons');
  private readonly passes = new PeriodicPass(
    () => this.crons.fireDue(new Date(Date.now() + this.clockAheadMs)),
    (error) => {
      this.logger.warn(`Firing due crons failed: ${String(error)}`);
    },
  );

  constructor(
    @Inject(CronsService) private readonly crons: CronsService,
    @Inject(CRON_POLL_INTERVAL_MS) private readonly intervalMs: number,
    @Inject(CRON_CLOCK_AHEAD_MS) private readonly clockAheadMs: number,
  ) {}

  onApplicationBootstrap(): void {
    this.passes.start(this.intervalMs, true);
  }

  onApplicationShutdown(): Promise<void> {
    return this.passes.stop();
  }
}
