import { compactInputSchema } from './compact-input-schema.js';

type JsonSchema = Record<string, unknown>;

const isRecord = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The argument every tool takes beside its graph's input: the thread to run on. */
export const THREAD_ID_ARGUMENT = {
  type: 'string',
  format: 'uuid',
  description:
    'The thread to run on, to continue its state; without it the run starts a new thread.',
} as const;

/** The argument that answers the interrupt a run stopped at, in place of the graph's input. */
export const RESUME_ARGUMENT = {
  description:
    'Your answer to the interrupt the run on thread_id stopped at: the run resumes with it ' +
    '(any JSON value; the other arguments are then not used).',
} as const;

/** The arguments of every tool, whatever its graph. */
const OWN_ARGUMENTS = { thread_id: THREAD_ID_ARGUMENT, resume: RESUME_ARGUMENT } as const;

/** An MCP tool's `inputSchema`: always an object schema. */
export type ToolInputSchema = JsonSchema & {
  type: 'object';
  properties: Record<string, object>;
};

/**
 * A tool's arguments: the graph's input schema, its messages compacted, with `thread_id` and
 * `resume` added; any object when the graph's input schema names no properties.
 */
export function toolInputSchema(graphInput: JsonSchema | null): ToolInputSchema {
  if (!graphInput || !isRecord(graphInput.properties)) return ownArgumentsSchema();
  if (Object.keys(graphInput.properties).length === 0) return ownArgumentsSchema();
  const compacted = compactInputSchema(graphInput);
  return {
    ...compacted,
    type: 'object',
    properties: { ...(compacted.properties as Record<string, object>), ...OWN_ARGUMENTS },
  };
}

/** The schema of the arguments every tool takes, and of a call that resumes a run. */
export function ownArgumentsSchema(): ToolInputSchema {
  return { type: 'object', properties: { ...OWN_ARGUMENTS } };
}
