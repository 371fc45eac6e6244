import { Module } from '@nestjs/common';
import { AssistantsModule } from '../assistants/assistants.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { CancelRunHandler } from './cancel-run/cancel-run.handler.js';
import { CancelRunsHandler } from './cancel-runs/cancel-runs.handler.js';
import { CreateRunBatchHandler } from './create-run-batch/create-run-batch.handler.js';
import { CreateRunHandler } from './create-run/create-run.handler.js';
import { DeleteRunHandler } from './delete-run/delete-run.handler.js';
import { RunCommands } from './run-commands.js';
import { RunWaits } from './run-waits.js';
import { RunsController } from './runs.controller.js';
import { RunsService } from './runs.service.js';

const COMMAND_HANDLERS = [
  CreateRunHandler,
  CreateRunBatchHandler,
  CancelRunHandler,
  CancelRunsHandler,
  DeleteRunHandler,
];

/** `/runs` and `/threads/{id}/runs`: runs made, streamed, joined, cancelled, deleted. */
@Module({
  imports: [AssistantsModule, ThreadsModule],
  controllers: [RunsController],
  providers: [RunsService, RunCommands, RunWaits, ...COMMAND_HANDLERS],
  exports: [RunsService, RunCommands, RunWaits],
})
export class RunsModule {}
