import type { JsonObject, JsonValue } from '#libs/event-store';
import { isJsonObject as isRecord } from '../common/json-object.js';

type BlockKind = 'text' | 'reasoning' | 'tool_call';

interface OpenBlock {
  readonly kind: BlockKind;
  readonly index: number;
  /** The tool call chunk's own index in the model's output, when the block is a tool call. */
  readonly chunkIndex?: JsonValue;
  id?: string;
  name?: string;
  text: string;
}

interface OpenMessage {
  readonly where: MessageSource;
  block?: OpenBlock;
  nextIndex: number;
  sawToolCalls: boolean;
}

function sourceKey(where: MessageSource): string {
  return `${where.namespace.join('|')}#${where.node ?? ''}`;
}

/** Where a message comes from: the graph's namespace and node. */
export interface MessageSource {
  readonly namespace: readonly string[];
  readonly node?: string;
}

export interface MessageEvent {
  readonly data: JsonObject;
  readonly where: MessageSource;
}

const ROLES: Record<string, string> = {
  ai: 'ai',
  AIMessageChunk: 'ai',
  human: 'human',
  HumanMessageChunk: 'human',
  system: 'system',
  SystemMessageChunk: 'system',
  tool: 'tool',
  ToolMessageChunk: 'tool',
};

function textOf(content: JsonValue | undefined, type: 'text' | 'reasoning'): string {
  if (typeof content === 'string') return type === 'text' ? content : '';
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .filter((block) => block.type === type)
    .map((block) => {
      const value = block[type === 'text' ? 'text' : 'reasoning'];
      return typeof value === 'string' ? value : '';
    })
    .join('');
}

function usageOf(message: JsonObject): JsonObject | undefined {
  const usage = message.usage_metadata;
  if (!isRecord(usage)) return undefined;
  return { ...usage };
}

function isLastChunk(message: JsonObject): boolean {
  if (message.chunk_position === 'last') return true;
  const metadata = message.response_metadata;
  return isRecord(metadata) && (metadata.finish_reason ?? metadata.stop_reason) != null;
}

function parsedArgs(text: string): JsonValue | undefined {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function finalizedBlock(block: OpenBlock): JsonObject {
  if (block.kind === 'text') return { type: 'text', text: block.text };
  if (block.kind === 'reasoning') return { type: 'reasoning', reasoning: block.text };
  const args = parsedArgs(block.text);
  return args === undefined
    ? {
        type: 'invalid_tool_call',
        id: block.id ?? null,
        name: block.name ?? null,
        args: block.text,
        error: 'arguments are not JSON',
      }
    : { type: 'tool_call', id: block.id ?? null, name: block.name ?? null, args };
}

function startedBlock(block: OpenBlock): JsonObject {
  if (block.kind === 'text') return { type: 'text', text: '' };
  if (block.kind === 'reasoning') return { type: 'reasoning', reasoning: '' };
  return { type: 'tool_call_chunk', id: block.id ?? null, name: block.name ?? null, args: '' };
}

function deltaOf(kind: BlockKind, text: string): JsonObject {
  if (kind === 'text') return { type: 'text-delta', text };
  if (kind === 'reasoning') return { type: 'reasoning-delta', reasoning: text };
  return { type: 'tool-call-delta', args: text };
}

interface ToolCallPart {
  readonly id?: string;
  readonly name?: string;
  readonly args: string;
  readonly index?: JsonValue;
}

function toolCallPartsOf(message: JsonObject, complete: boolean): ToolCallPart[] {
  const source = complete ? message.tool_calls : message.tool_call_chunks;
  if (!Array.isArray(source)) return [];
  return source.filter(isRecord).map((call) => ({
    id: typeof call.id === 'string' ? call.id : undefined,
    name: typeof call.name === 'string' ? call.name : undefined,
    args: complete
      ? JSON.stringify(call.args ?? {})
      : typeof call.args === 'string'
        ? call.args
        : '',
    index: complete ? undefined : (call.index ?? undefined),
  }));
}

/**
 * The `messages` channel of one run: LangGraph's `[message, metadata]` chunks as content-block
 * events (message-start, content-block-start, -delta, -finish, message-finish). A message opens
 * with its first chunk (a message that comes whole is one chunk) and closes on its last chunk, when
 * the node that wrote it is done, or at the run's end. Blocks of one message never interleave.
 */
export class MessageEvents {
  private readonly open = new Map<string, OpenMessage>();
  private anonymous = 0;

  /** The events one `[message, metadata]` chunk gives. */
  translate(message: JsonObject, where: MessageSource): MessageEvent[] {
    return this.eventsOf(message, where).map((data) => ({ data, where }));
  }

  /** What closes every message still open: the run is over. */
  finishAll(): MessageEvent[] {
    return [...this.open.entries()].flatMap(([id, state]) =>
      this.finish(id, state, undefined).map((data) => ({ data, where: state.where })),
    );
  }

  /** What closes the messages a node still has open: the node is done (its update came). */
  finishNode(where: MessageSource): MessageEvent[] {
    const key = sourceKey(where);
    return [...this.open.entries()]
      .filter(([, state]) => sourceKey(state.where) === key)
      .flatMap(([id, state]) =>
        this.finish(id, state, undefined).map((data) => ({ data, where: state.where })),
      );
  }

  private eventsOf(message: JsonObject, where: MessageSource): JsonObject[] {
    const type = typeof message.type === 'string' ? message.type : 'ai';
    const id =
      typeof message.id === 'string' && message.id ? message.id : `message-${++this.anonymous}`;
    if (this.finished.has(id)) return [];
    const events: JsonObject[] = [];
    let state = this.open.get(id);
    if (!state) {
      state = { nextIndex: 0, where, sawToolCalls: false };
      this.open.set(id, state);
      events.push({ event: 'message-start', role: ROLES[type] ?? 'ai', id });
    }
    const open = state;
    const add = (kind: BlockKind, text: string, part?: ToolCallPart): void => {
      const current = open.block;
      const sameBlock =
        current?.kind === kind &&
        (kind !== 'tool_call' ||
          (part?.index !== undefined
            ? current.chunkIndex === part.index
            : !part?.id || part.id === current.id));
      if (!sameBlock) {
        if (current) events.push(this.closeBlock(current));
        const block: OpenBlock = {
          kind,
          index: open.nextIndex++,
          chunkIndex: part?.index,
          id: part?.id,
          name: part?.name,
          text: '',
        };
        open.block = block;
        events.push({
          event: 'content-block-start',
          index: block.index,
          content: startedBlock(block),
        });
      }
      const block = open.block as OpenBlock;
      block.id ??= part?.id;
      block.name ??= part?.name;
      if (text === '') return;
      block.text += text;
      events.push({ event: 'content-block-delta', index: block.index, delta: deltaOf(kind, text) });
    };
    const reasoning = textOf(message.content, 'reasoning');
    if (reasoning) add('reasoning', reasoning);
    const text = textOf(message.content, 'text');
    if (text) add('text', text);
    // A streamed message brings its calls in chunks; one that comes whole, as calls.
    const chunks = toolCallPartsOf(message, false);
    const parts =
      chunks.length > 0 ? chunks : open.sawToolCalls ? [] : toolCallPartsOf(message, true);
    for (const part of parts) {
      open.sawToolCalls = true;
      add('tool_call', part.args, part);
    }
    if (isLastChunk(message)) events.push(...this.finish(id, open, usageOf(message)));
    return events;
  }

  private readonly finished = new Set<string>();

  private finish(id: string, state: OpenMessage, usage: JsonObject | undefined): JsonObject[] {
    this.open.delete(id);
    this.finished.add(id);
    const events: JsonObject[] = [];
    if (state.block) events.push(this.closeBlock(state.block));
    events.push({ event: 'message-finish', ...(usage ? { usage } : {}) });
    return events;
  }

  private closeBlock(block: OpenBlock): JsonObject {
    return { event: 'content-block-finish', index: block.index, content: finalizedBlock(block) };
  }
}
