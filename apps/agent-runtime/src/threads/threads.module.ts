import { Module } from '@nestjs/common';
import { Application } from '../application/application.js';
import { CopyThreadHandler } from './copy-thread/copy-thread.handler.js';
import { CreateThreadHandler } from './create-thread/create-thread.handler.js';
import { DeleteThreadHandler } from './delete-thread/delete-thread.handler.js';
import { PatchThreadStateHandler } from './patch-thread-state/patch-thread-state.handler.js';
import { PruneThreadsHandler } from './prune-threads/prune-threads.handler.js';
import { DEFAULT_THREAD_TTL_MINUTES, ThreadCommands } from './thread-commands.js';
import { ThreadExpirySweeper } from './thread-expiry.sweeper.js';
import { ThreadStateUpdates } from './thread-state-updates.service.js';
import { ThreadStateService } from './thread-state.service.js';
import { ThreadStorageService } from './thread-storage.service.js';
import { ThreadsController } from './threads.controller.js';
import { ThreadsService } from './threads.service.js';
import { UpdateThreadStateHandler } from './update-thread-state/update-thread-state.handler.js';
import { UpdateThreadHandler } from './update-thread/update-thread.handler.js';

const SERVICES = [
  ThreadCommands,
  ThreadsService,
  ThreadStateService,
  ThreadStorageService,
  ThreadStateUpdates,
];

const COMMAND_HANDLERS = [
  CreateThreadHandler,
  UpdateThreadHandler,
  DeleteThreadHandler,
  PruneThreadsHandler,
  CopyThreadHandler,
  UpdateThreadStateHandler,
  PatchThreadStateHandler,
];

/**
 * `/threads`: threads, their state and history, copies and expiry. The copy route's admission
 * (ThreadCopyAdmission) comes from the global authorization module, which reads every feature.
 */
@Module({
  controllers: [ThreadsController],
  providers: [
    ...SERVICES,
    ...COMMAND_HANDLERS,
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
