import { Module } from '@nestjs/common';
import { AssistantsModule } from '../assistants/assistants.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { A2aAgents } from './a2a-agents.js';
import { A2aRunCreation } from './a2a-run-creation.js';

/** `/a2a`: each assistant as an A2A agent (its routes are registered on Fastify by runtime-http). */
@Module({
  imports: [AssistantsModule, RunsModule, ThreadsModule],
  providers: [A2aRunCreation, A2aAgents],
})
export class A2aModule {}
