import { Module } from '@nestjs/common';
import { AssistantsModule } from '../assistants/assistants.module.js';
import { RunsModule } from '../runs/runs.module.js';
import { ThreadsModule } from '../threads/threads.module.js';
import { MCP_PROVIDERS } from './mcp.providers.js';

/** `/mcp`: the assistants as MCP tools (the route is registered on Fastify by runtime-http). */
@Module({
  imports: [AssistantsModule, RunsModule, ThreadsModule],
  providers: MCP_PROVIDERS,
})
export class McpModule {}
