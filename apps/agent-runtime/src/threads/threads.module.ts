import { Module } from '@nestjs/common';
import { Application } from '../application/application.js';
import { ThreadCreation } from './thread-creation.service.js';
import { ThreadExpirySweeper } from './thread-expiry.sweeper.js';
import { ThreadStateUpdates } from './thread-state-updates.service.js';
import { ThreadStateService } from './thread-state.service.js';
import { ThreadStorageService } from './thread-storage.service.js';
import { ThreadsController } from './threads.controller.js';
import { DEFAULT_THREAD_TTL_MINUTES, ThreadsService } from './threads.service.js';

const SERVICES = [
  ThreadsService,
  ThreadStateService,
  ThreadStorageService,
  ThreadStateUpdates,
  ThreadCreation,
];

/**
 * `/threads`: threads, their state and history, copies and expiry. The copy route's admission
 * (ThreadCopyAdmission) comes from the global authorization module, which reads every feature.
 */
@Module({
  controllers: [ThreadsController],
  providers: [
    ...SERVICES,
    {
      provide: DEFAULT_THREAD_TTL_MINUTES,
      useFactory: (application: Application): number | null =>
        application.config.checkpointer?.defaultTtlMinutes ?? null,
      inject: [Application],
    },
    ThreadExpirySweeper,
  ],
  exports: SERVICES,
})
export class ThreadsModule {}
