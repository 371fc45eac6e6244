import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRefusal } from '#libs/http';
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

/** The interrupts a run stopped at, each task's in turn: `[{id, value}]`. */
export function openInterruptsOf(interrupts: Record<string, unknown>): unknown[] {
  return Object.values(interrupts).flatMap((list): unknown[] => (Array.isArray(list) ? list : []));
}

/**
 * A run that stopped at an interrupt: not an error, and not done. `_meta.status` says so in the
 * word MCP's tasks use for it (`input_required`), `_meta.resume` is the call that answers it,
 * and the text tells the model the question and that call.
 */
function inputRequiredResult(
  run: ToolRun,
  toolName: string,
  interrupts: unknown[],
): CallToolResult {
  const resume = { thread_id: run.threadId, resume: '<your answer>' };
  const values = isRecord(run.result) ? run.result : {};
  const questions = interrupts.map((interrupt) =>
    isRecord(interrupt) && 'value' in interrupt ? interrupt.value : interrupt,
  );
  return {
    content: [
      {
        type: 'text',
        text:
          `The run stopped at an interrupt and waits for input: ${JSON.stringify(questions)}. ` +
          `To answer, call ${toolName} again with ${JSON.stringify(resume)}.`,
      },
    ],
    structuredContent: { ...values, __interrupt__: interrupts },
    _meta: {
      thread_id: run.threadId,
      run_id: run.runId,
      status: 'input_required',
      resume: { tool: toolName, arguments: resume },
    },
  };
}

/** The run's final state values as the result (text and structured), or its error. */
export function runResult(run: ToolRun, toolName: string): CallToolResult {
  const meta = { thread_id: run.threadId, run_id: run.runId };
  const { result } = run;
  if (isRecord(result) && '__error__' in result) {
    const error = isRecord(result.__error__) ? result.__error__ : {};
    const name = typeof error.error === 'string' ? error.error : 'Error';
    const message = typeof error.message === 'string' ? error.message : 'The run failed';
    return errorResult(`${name}: ${message}`, meta);
  }
  const interrupts = openInterruptsOf(run.interrupts);
  if (interrupts.length > 0) return inputRequiredResult(run, toolName, interrupts);
  return {
    content: [{ type: 'text', text: JSON.stringify(result ?? null) }],
    ...(isRecord(result) ? { structuredContent: result } : {}),
    _meta: { ...meta, status: 'completed' },
  };
}

/**
 * What a refused or failed call tells its caller: the message of a domain or HTTP error (a
 * thread not found, an auth handler's refusal); undefined for anything else, which is a fault.
 */
export function refusalOf(error: unknown): string | undefined {
  if (isRefusal(error)) return error.message;
  return undefined;
}
