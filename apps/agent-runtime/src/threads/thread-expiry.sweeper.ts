import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DomainError } from '#libs/domain';
import { RunQueue } from '../run-records/run-queue.js';
import { ThreadsService } from './threads.service.js';

/** How often the sweeper looks for threads whose TTL ran out (milliseconds). */
export const THREAD_SWEEP_INTERVAL_MS = Symbol('THREAD_SWEEP_INTERVAL_MS');

const BATCH = 100;

/**
 * Deletes threads whose TTL has run out since they were last touched (`ThreadExpired`). Every
 * replica sweeps: a thread with a run in flight is left for a later sweep, and a thread another
 * replica expired first is a no-op of the decider.
 */
@Injectable()
export class ThreadExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('threads');
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(RunQueue) private readonly queue: RunQueue,
    @Inject(THREAD_SWEEP_INTERVAL_MS) private readonly intervalMs: number,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One sweep; resolves with how many threads it expired. */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let expired = 0;
    try {
      for (const threadId of await this.threads.expiredThreadIds(BATCH)) {
        if (await this.expire(threadId)) expired++;
      }
    } catch (error) {
      this.logger.warn(`Sweeping expired threads failed: ${String(error)}`);
    } finally {
      this.sweeping = false;
    }
    return expired;
  }

  private async expire(threadId: string): Promise<boolean> {
    try {
      return await this.queue.whileIdle(threadId, () =>
        this.threads.expire(threadId, new Date().toISOString()),
      );
    } catch (error) {
      // A run was admitted since the read model was read: the thread is in use after all.
      if (error instanceof DomainError && error.code === 'conflict') return false;
      throw error;
    }
  }
}
