import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { CronsService } from './crons.service.js';

/** How often each replica looks for crons that are due (milliseconds). */
export const CRON_POLL_INTERVAL_MS = Symbol('CRON_POLL_INTERVAL_MS');

/**
 * Fires the crons that are due, on every replica: at start (the catch-up after a stop) and then
 * every poll. Which replica fires a tick does not matter; that it fires once is decided on the
 * cron's stream.
 */
@Injectable()
export class CronScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('crons');
  private timer: NodeJS.Timeout | undefined;
  private passing: Promise<void> | undefined;

  constructor(
    @Inject(CronsService) private readonly crons: CronsService,
    @Inject(CRON_POLL_INTERVAL_MS) private readonly intervalMs: number,
  ) {}

  onApplicationBootstrap(): void {
    void this.pass();
    this.timer = setInterval(() => void this.pass(), this.intervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.passing;
  }

  private pass(): Promise<void> {
    this.passing ??= this.crons
      .fireDue(new Date())
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.warn(`Firing due crons failed: ${String(error)}`);
        },
      )
      .finally(() => {
        this.passing = undefined;
      });
    return this.passing;
  }
}
