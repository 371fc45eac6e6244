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

/** An MCP tool's `inputSchema`: always an object schema. */
export type ToolInputSchema = JsonSchema & {
  type: 'object';
  properties: Record<string, object>;
};

/**
 * A tool's arguments: the graph's input schema with `thread_id` added; any object when the
 * graph's input schema names no properties.
 */
export function toolInputSchema(graphInput: JsonSchema | null): ToolInputSchema {
  const properties = graphInput?.properties;
  if (!graphInput || !isRecord(properties) || Object.keys(properties).length === 0) {
    return { type: 'object', properties: { thread_id: THREAD_ID_ARGUMENT } };
  }
  return {
    ...graphInput,
    type: 'object',
    properties: { ...(properties as Record<string, object>), thread_id: THREAD_ID_ARGUMENT },
  };
}
