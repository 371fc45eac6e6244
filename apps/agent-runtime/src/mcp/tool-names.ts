/** What a tool is made from: an assistant as the API shows it. */
export interface ToolAssistant {
  readonly assistant_id: string;
  readonly graph_id: string;
  readonly name: string | null;
  readonly description: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** An assistant as an MCP tool: its name among the others', and a sentence about it. */
export interface AssistantTool {
  readonly name: string;
  readonly description: string;
  readonly assistant: ToolAssistant;
}

/** The longest name most MCP clients (and the models behind them) accept. */
export const TOOL_NAME_MAX = 64;

const isSystem = (assistant: ToolAssistant): boolean =>
  assistant.metadata['created_by'] === 'system';

/** A name of letters, digits, `_` and `-` only, as MCP clients require of tool names. */
export function validToolName(text: string): string {
  return text
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, TOOL_NAME_MAX);
}

function baseName(assistant: ToolAssistant): string {
  const wanted = isSystem(assistant) ? assistant.graph_id : (assistant.name ?? '');
  return validToolName(wanted) || validToolName(assistant.graph_id) || 'assistant';
}

function descriptionOf(assistant: ToolAssistant): string {
  if (assistant.description?.trim()) return assistant.description;
  return isSystem(assistant)
    ? `Runs the graph "${assistant.graph_id}" and answers with its final state.`
    : `Runs the assistant "${assistant.name ?? assistant.assistant_id}" of the graph "${assistant.graph_id}" and answers with its final state.`;
}

/**
 * Each assistant's tool, in the order given (the oldest first keeps a name as others come): a
 * name already taken gets `_2`, `_3`, ... so that every name is one assistant's.
 */
export function assistantTools(assistants: readonly ToolAssistant[]): AssistantTool[] {
  const taken = new Set<string>();
  return assistants.map((assistant) => {
    const base = baseName(assistant);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) {
      const suffix = `_${n}`;
      name = `${base.slice(0, TOOL_NAME_MAX - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return { name, description: descriptionOf(assistant), assistant };
  });
}
