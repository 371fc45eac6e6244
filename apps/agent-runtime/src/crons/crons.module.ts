import { Module } from '@nestjs/common';
import { AssistantsModule } from '../assistants/assistants.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { CronScheduler } from './cron.scheduler.js';
import { CronsController } from './crons.controller.js';
import { CronsService } from './crons.service.js';
import { CreateCronHandler } from './create-cron/create-cron.handler.js';
import { DeleteCronHandler } from './delete-cron/delete-cron.handler.js';
import { UpdateCronHandler } from './update-cron/update-cron.handler.js';

/** `/runs/crons`: crons, their commands, and the scheduler that fires them. */
@Module({
  imports: [AssistantsModule, ThreadsModule, RunsModule],
  controllers: [CronsController],
  providers: [CronsService, CronScheduler, CreateCronHandler, UpdateCronHandler, DeleteCronHandler],
  exports: [CronsService],
})
export class CronsModule {}
