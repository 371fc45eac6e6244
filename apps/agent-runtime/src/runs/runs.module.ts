import { Module } from '@nestjs/common';
import { AssistantsModule } from '../assistants/assistants.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { RunWaits } from './run-waits.js';
import { RunsController } from './runs.controller.js';
import { RunsService } from './runs.service.js';

/** `/runs` and `/threads/{id}/runs`: runs made, streamed, joined, cancelled, deleted. */
@Module({
  imports: [AssistantsModule, ThreadsModule],
  controllers: [RunsController],
  providers: [RunsService, RunWaits],
  exports: [RunsService, RunWaits],
})
export class RunsModule {}
