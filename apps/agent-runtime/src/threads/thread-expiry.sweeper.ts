import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { DomainError } from '#libs/domain';
import { PeriodicPass } from '../common/periodic-pass.js';
import { RunQueue } from '../run-records/run-queue.js';
import { ThreadsService } from './threads.service.js';
import { ThreadCommands } from './thread-commands.js';

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
  private readonly passes = new PeriodicPass(
    () => this.sweep(),
    (error) => {
      this.logger.warn(`Sweeping expired threads failed: ${String(error)}`);
    },
  );

  constructor(
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(ThreadCommands) private readonly threadCommands: ThreadCommands,
    @Inject(RunQueue) private readonly queue: RunQueue,
    @Inject(THREAD_SWEEP_INTERVAL_MS) private readonly intervalMs: number,
  ) {}

  onApplicationBootstrap(): void {
    this.passes.start(this.intervalMs);
  }

  onApplicationShutdown(): Promise<void> {
    return this.passes.stop();
  }

  private async sweep(): Promise<void> {
    for (const threadId of await this.threads.expiredThreadIds(BATCH)) await this.expire(threadId);
  }

  private async expire(threadId: string): Promise<boolean> {
    try {
      return await this.queue.whileIdle(threadId, () =>
        this.threadCommands.expire(threadId, new Date().toISOString()),
      );
    } catch (error) {
      // A run was admitted since the read model was read: the thread is in use after all.
      if (error instanceof DomainError && error.code === 'conflict') return false;
      throw error;
    }
  }
}
