import { Role, type Artifact, type Message, type Part } from '@a2a-js/sdk';
import type { JsonValue } from '#libs/event-store';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    mediaType: 'text/plain',
    filename: '',
    metadata: {},
  };
}

export function dataPart(data: unknown): Part {
  return {
    content: { $case: 'data', value: data },
    mediaType: 'application/json',
    filename: '',
    metadata: {},
  };
}

/** Who a message of a task is and where it belongs. */
export interface MessageIds {
  readonly taskId: string;
  readonly contextId: string;
  readonly messageId: string;
}

const messageOf = (ids: MessageIds, role: Role, parts: Part[]): Message => ({
  ...ids,
  role,
  parts,
  metadata: {},
  extensions: [],
  referenceTaskIds: [],
});

/** A message of the agent's in a task. */
export function agentMessage(ids: MessageIds, parts: Part[]): Message {
  return messageOf(ids, Role.ROLE_AGENT, parts);
}

/** A message of the user's in a task. */
export function userMessage(ids: MessageIds, parts: Part[]): Message {
  return messageOf(ids, Role.ROLE_USER, parts);
}

/** A message's text: its content when a string, the text blocks of a content list joined. */
function textOf(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .map((block) => (isRecord(block) && typeof block.text === 'string' ? block.text : undefined))
    .filter((text): text is string => text !== undefined);
  return texts.length ? texts.join('') : undefined;
}

const isAiMessage = (message: Record<string, unknown>): boolean =>
  message.type === 'ai' ||
  message.role === 'assistant' ||
  message.role === 'ai' ||
  (Array.isArray(message.id) && message.id.includes('AIMessage'));

/**
 * What a finished run answers: the text of the last AI message of its `messages`, or its
 * state as data when it has none.
 */
export function answerParts(values: JsonValue): Part[] {
  const messages = isRecord(values) && Array.isArray(values.messages) ? values.messages : [];
  for (const message of [...messages].reverse()) {
    if (!isRecord(message)) continue;
    const fields = isRecord(message.kwargs) ? message.kwargs : message;
    if (!isAiMessage(message) && !isAiMessage(fields)) continue;
    const text = textOf(fields.content);
    if (text !== undefined) return [textPart(text)];
  }
  return [dataPart(values)];
}

/** The artifact that holds a finished run's answer (one per task: each run's replaces it). */
export function answerArtifact(values: JsonValue): Artifact {
  return {
    artifactId: 'answer',
    name: 'answer',
    description: "The graph's last AI message, or its state",
    parts: answerParts(values),
    metadata: {},
    extensions: [],
  };
}

/** The question of a run that ended on an interrupt: the first interrupt's value. */
export function interruptParts(interrupts: Record<string, unknown>): Part[] {
  for (const list of Object.values(interrupts)) {
    const first: unknown = Array.isArray(list) ? list[0] : undefined;
    if (!isRecord(first)) continue;
    const value = first.value;
    return [typeof value === 'string' ? textPart(value) : dataPart(value ?? null)];
  }
  return [textPart('The graph is waiting for input.')];
}

export const hasInterrupts = (interrupts: Record<string, unknown>): boolean =>
  Object.values(interrupts).some((list) => Array.isArray(list) && list.length > 0);
