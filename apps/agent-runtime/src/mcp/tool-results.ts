import { HttpException } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DomainError } from '#libs/domain';
import type { ToolRun } from './tool-runs.service.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An MCP error result: the tool ran (or was refused) and the model reads why. */
export function errorResult(message: string, meta?: Record<string, unknown>): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: message }],
    ...(meta && { _meta: meta }),
  };
}

/** The run's final state values as the result (text and structured), or its error. */
export function runResult(run: ToolRun): CallToolResult {
  const meta = { thread_id: run.threadId, run_id: run.runId };
  const { result } = run;
  if (isRecord(result) && '__error__' in result) {
    const error = isRecord(result.__error__) ? result.__error__ : {};
    const name = typeof error.error === 'string' ? error.error : 'Error';
    const message = typeof error.message === 'string' ? error.message : 'The run failed';
    return errorResult(`${name}: ${message}`, meta);
  }
  return {
    content: [{ type: 'text', text: JSON.stringify(result ?? null) }],
    ...(isRecord(result) ? { structuredContent: result } : {}),
    _meta: meta,
  };
}

/**
 * What a refused or failed call tells its caller: the message of a domain or HTTP error (a
 * thread not found, an auth handler's refusal); undefined for anything else, which is a fault.
 */
export function refusalOf(error: unknown): string | undefined {
  if (error instanceof DomainError || error instanceof HttpException) return error.message;
  return undefined;
}
