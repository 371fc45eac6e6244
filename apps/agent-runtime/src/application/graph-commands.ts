import type { GraphCommand } from '../execution/graph-stream.js';
import type { LangGraphBindings } from '../graphs/graph-loader.js';

type SendClass = new (node: string, args: unknown) => unknown;

/** Builds LangGraph Commands with the application's own classes; `goto` items may be Sends. */
export function commandFactory(
  Command: LangGraphBindings['Command'],
  Send: unknown,
): (command: GraphCommand) => unknown {
  return (command) => {
    const goto = toGoto(command.goto, Send as SendClass | undefined);
    return new Command({ ...command, ...(goto === undefined ? {} : { goto }) });
  };
}

/** `{node, input}` items of `goto` become Sends, as the reference server does. */
function toGoto(goto: unknown, Send: SendClass | undefined): unknown {
  if (goto === undefined || !Send) return goto;
  const one = (item: unknown): unknown =>
    typeof item === 'object' && item !== null && 'node' in item && typeof item.node === 'string'
      ? new Send(item.node, (item as { input?: unknown }).input)
      : item;
  return Array.isArray(goto) ? goto.map(one) : one(goto);
}
