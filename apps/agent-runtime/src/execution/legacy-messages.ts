/**
 * The reference server's legacy `messages` stream mode (as opposed to `messages-tuple`):
 *
 * - `messages/metadata` `{ [messageId]: { metadata } }` the first time a chat model streams a
 *   chunk of a message,
 * - `messages/partial` `[accumulatedMessage]` for every streamed chunk, carrying the message
 *   concatenated so far,
 * - `messages/complete` `[...messages]` for messages that appear in the graph's state for the
 *   first time (read from the root `values` chunks).
 */
import { isRecord } from '../common/records.js';

/** An event of the mode, its payload as the graph gave it (made plain JSON where it is sent). */
export interface LegacyMessageEvent {
  readonly event: 'messages/metadata' | 'messages/partial' | 'messages/complete';
  readonly payload: unknown;
}

interface ConcatenableMessage {
  readonly id?: unknown;
  concat(other: ConcatenableMessage): ConcatenableMessage;
}

function isConcatenableMessage(value: unknown): value is ConcatenableMessage {
  return isRecord(value) && typeof value['concat'] === 'function';
}

function isBaseMessage(value: unknown): boolean {
  return isRecord(value) && typeof value['_getType'] === 'function';
}

function messageIdOf(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  const id = value['id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Adds `graph_node` (= `langgraph_node`) to a message's stream metadata, when known. */
export function withGraphNode(metadata: unknown): unknown {
  if (!isRecord(metadata) || Array.isArray(metadata)) return metadata;
  const node = metadata['langgraph_node'];
  return node === undefined ? metadata : { ...metadata, graph_node: node };
}

/** The messages held by a state chunk (`chunk.messages`), as a list. */
function stateMessagesOf(chunk: unknown): readonly unknown[] {
  if (!isRecord(chunk) || !('messages' in chunk) || isBaseMessage(chunk)) return [];
  const messages = chunk['messages'];
  return Array.isArray(messages) ? messages : [messages];
}

export class LegacyMessagesTracker {
  private readonly partialById = new Map<string, ConcatenableMessage>();
  private readonly completedIds = new Set<string>();

  /** `messages/complete` for state messages not reported as complete before. */
  *onStateChunk(chunk: unknown): Generator<LegacyMessageEvent> {
    const fresh = stateMessagesOf(chunk).filter((message) => {
      const id = messageIdOf(message);
      if (id === undefined || this.completedIds.has(id)) return false;
      this.completedIds.add(id);
      return true;
    });
    if (fresh.length > 0) yield { event: 'messages/complete', payload: fresh };
  }

  /** `messages/metadata` (first chunk only) then `messages/partial` for a chat model chunk. */
  *onChatModelChunk(chunk: unknown, metadata: unknown): Generator<LegacyMessageEvent> {
    const id = messageIdOf(chunk);
    if (id === undefined || !isConcatenableMessage(chunk)) return;
    const previous = this.partialById.get(id);
    const accumulated = previous === undefined ? chunk : previous.concat(chunk);
    this.partialById.set(id, accumulated);
    if (previous === undefined) {
      yield {
        event: 'messages/metadata',
        payload: { [id]: { metadata: withGraphNode(metadata) } },
      };
    }
    yield { event: 'messages/partial', payload: [accumulated] };
  }
}
