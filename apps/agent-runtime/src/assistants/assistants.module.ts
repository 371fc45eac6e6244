import { Module } from '@nestjs/common';
import { ThreadsModule } from '../threads/threads.module.js';
import { AssistantCommands } from './assistant-commands.js';
import { AssistantGraphs } from './assistant-graphs.service.js';
import { ASSISTANT_PROVIDERS } from './assistant.providers.js';
import { AssistantsController } from './assistants.controller.js';
import { AssistantsService } from './assistants.service.js';

/** `/assistants`: assistants, their versions and graphs, and each graph's default one. */
@Module({
  imports: [ThreadsModule],
  controllers: [AssistantsController],
  providers: ASSISTANT_PROVIDERS,
  exports: [AssistantsService, AssistantGraphs, AssistantCommands],
})
export class AssistantsModule {}
