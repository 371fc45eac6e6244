import type { Provider } from '@nestjs/common';
import { AssistantTools } from './assistant-tools.service.js';
import { McpSessions } from './mcp-sessions.js';
import { ToolRuns } from './tool-runs.service.js';

/** What `/mcp` is served with (see `serveMcp`). */
export const MCP_PROVIDERS: Provider[] = [AssistantTools, ToolRuns, McpSessions];
