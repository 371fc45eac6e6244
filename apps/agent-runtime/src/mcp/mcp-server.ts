import { Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { BERTH_VERSION } from '#libs/config';
import type { JsonObject, JsonValue } from '#libs/event-store';
import type { AssistantTools } from './assistant-tools.service.js';
import { callerOf } from './mcp-caller.js';
import { argumentsProblem } from './tool-arguments.js';
import type { ToolInputSchema } from './tool-input-schema.js';
import { errorResult, refusalOf, runResult } from './tool-results.js';
import type { ToolRuns } from './tool-runs.service.js';

const logger = new Logger('mcp');

/** What each session's server answers with: the assistants as tools, and their runs. */
export interface McpToolbox {
  readonly tools: AssistantTools;
  readonly runs: ToolRuns;
}

/** One session's MCP server: `tools/list` gives the assistants, `tools/call` runs one. */
export function createMcpServer({ tools, runs }: McpToolbox): McpServer {
  const mcp = new McpServer({ name: 'berth-agent-runtime', version: BERTH_VERSION });
  // Tools of its own: the assistants, as they are when asked (not McpServer's registered ones).
  mcp.server.registerCapabilities({ tools: {} });
  mcp.server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const listed: Tool[] = [];
    for (const tool of await tools.visible(callerOf(extra.authInfo))) {
      // An assistant whose graph failed to load is not offered: calling it could only fail.
      const inputSchema = await tools.inputSchema(tool).catch(() => undefined);
      if (inputSchema) listed.push({ name: tool.name, description: tool.description, inputSchema });
    }
    return { tools: listed };
  });
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const who = callerOf(extra.authInfo);
    const { name, arguments: args = {} } = request.params;
    const tool = await tools.named(who, name);
    if (!tool) throw invalidParams(`Unknown tool: ${name}`);
    let inputSchema: ToolInputSchema;
    try {
      inputSchema = await tools.inputSchema(tool);
    } catch (error) {
      return failure(error);
    }
    const problem = argumentsProblem(inputSchema, args);
    if (problem) throw invalidParams(`Invalid arguments for tool ${name}: ${problem}`);
    const { thread_id: threadId, resume, ...input } = args;
    try {
      const run = await runs.run(
        who,
        tool,
        resume === undefined ? { input: input as JsonObject } : { resume: resume as JsonValue },
        typeof threadId === 'string' ? threadId : undefined,
        extra.signal,
      );
      return runResult(run, name);
    } catch (error) {
      return failure(error);
    }
  });
  return mcp;
}

/** A JSON-RPC error of the request (McpError would put its code in the message twice). */
function invalidParams(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

function failure(error: unknown): CallToolResult {
  const refusal = refusalOf(error);
  if (refusal !== undefined) return errorResult(refusal);
  logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return errorResult('The tool call failed: internal error');
}
