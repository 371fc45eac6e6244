/** A stream event as a person reads it: its mode, the node it came from, and what it says. */
export interface EventSummary {
  readonly mode: string;
  /** The subgraph it came from (`<event>|<namespace>`), if any. */
  readonly namespace: string | null;
  readonly node: string | null;
  readonly text: string;
}

type Fields = Record<string, unknown>;

const TEXT_LIMIT = 140;

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clipped(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > TEXT_LIMIT ? `${flat.slice(0, TEXT_LIMIT - 1)}…` : flat;
}

function short(value: unknown): string {
  if (typeof value === 'string') return clipped(value);
  // undefined for what JSON has no text for (undefined, a function)
  const json = JSON.stringify(value) as string | undefined;
  return clipped(json ?? String(value));
}

/** The text of a message's content: a string, or the text parts of a list of blocks. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isFields(part) && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** `ai: "It is 12 °C in Oslo"`, or `ai calls get_weather({"city":"Oslo"})`. */
export function messageText(message: unknown): string {
  if (!isFields(message)) return short(message);
  const type = typeof message.type === 'string' ? message.type : 'message';
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isFields) : [];
  const text = contentText(message.content);
  const said = text ? `${type}: "${clipped(text)}"` : type;
  if (calls.length === 0) return said;
  const called = calls.map((call) => `${String(call.name)}(${short(call.args ?? {})})`).join(', ');
  return `${text ? `${said}, ` : `${type} `}calls ${called}`;
}

function messagesOf(value: unknown): unknown[] | undefined {
  return isFields(value) && Array.isArray(value.messages) ? value.messages : undefined;
}

function stateText(values: unknown): string {
  if (!isFields(values)) return short(values);
  if (Array.isArray(values.__interrupt__)) return `interrupted: ${short(values.__interrupt__)}`;
  const messages = messagesOf(values);
  if (messages) {
    const last = messages.at(-1);
    const count = `${messages.length} message${messages.length === 1 ? '' : 's'}`;
    return last === undefined ? count : `${count}, the last ${messageText(last)}`;
  }
  return `keys: ${Object.keys(values).join(', ') || '(none)'}`;
}

/** What a node's update wrote: its new messages, or the keys it set. */
function updateText(update: unknown): string {
  const messages = messagesOf(update);
  if (messages) return messages.map(messageText).join('; ') || 'no message';
  if (isFields(update)) return `set ${Object.keys(update).join(', ') || 'nothing'}`;
  return short(update);
}

function summarizeUpdates(data: unknown): Pick<EventSummary, 'node' | 'text'> {
  if (!isFields(data)) return { node: null, text: short(data) };
  const nodes = Object.keys(data);
  if (nodes.length === 1 && nodes[0] === '__interrupt__') {
    return { node: null, text: `interrupted: ${short(data.__interrupt__)}` };
  }
  return {
    node: nodes.join(', ') || null,
    text: nodes.map((node) => updateText(data[node])).join(' | '),
  };
}

function summarizeMessageTuple(data: unknown): Pick<EventSummary, 'node' | 'text'> {
  if (!Array.isArray(data)) return { node: null, text: short(data) };
  const [message, metadata] = data as [unknown, unknown];
  const node =
    isFields(metadata) && typeof metadata.langgraph_node === 'string'
      ? metadata.langgraph_node
      : null;
  return { node, text: messageText(message) };
}

function summarizeBody(mode: string, data: unknown): Pick<EventSummary, 'node' | 'text'> {
  switch (mode) {
    case 'metadata':
      return {
        node: null,
        text: isFields(data) ? `run ${String(data.run_id)} started` : short(data),
      };
    case 'values':
      return { node: null, text: stateText(data) };
    case 'updates':
      return summarizeUpdates(data);
    case 'messages':
      return summarizeMessageTuple(data);
    case 'messages/partial':
    case 'messages/complete':
      return {
        node: null,
        text: Array.isArray(data) ? data.map(messageText).join('; ') : short(data),
      };
    case 'error':
      return {
        node: null,
        text: isFields(data) ? `${String(data.error)}: ${String(data.message)}` : short(data),
      };
    case 'tasks':
      return {
        node: isFields(data) && typeof data.name === 'string' ? data.name : null,
        text: isFields(data) && 'result' in data ? 'task finished' : 'task started',
      };
    case 'end':
      return { node: null, text: 'the run ended' };
    default:
      return { node: null, text: short(data) };
  }
}

/** One event of a run's stream, summed up for the run page (the raw JSON stays one click away). */
export function summarizeEvent(event: {
  readonly event: string;
  readonly data: unknown;
}): EventSummary {
  const [mode = event.event, ...namespace] = event.event.split('|');
  return {
    mode,
    namespace: namespace.length > 0 ? namespace.join('|') : null,
    ...summarizeBody(mode, event.data),
  };
}
