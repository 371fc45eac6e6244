import { Command } from '@nestjs/cqrs';
import type { QueuedRunStatus } from '../../run-records/run-queue.js';

/** The runs named cancelled, or every run of a thread, or every run waiting or running. */
export class CancelRuns extends Command<void> {
  constructor(
    readonly selection: {
      readonly threadId?: string;
      readonly runIds?: readonly string[];
      readonly status?: QueuedRunStatus | 'all';
    },
    readonly action: 'interrupt' | 'rollback',
    readonly now: string,
  ) {
    super();
  }
}
