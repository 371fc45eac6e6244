import type { Message } from '@a2a-js/sdk';
import type { JsonObject, JsonValue } from '#libs/event-store';
import type { RunCreatedData } from '../run-records/run.events.js';
import { dataPart, textPart, userMessage, type MessageIds } from './task-parts.js';

/** The run metadata key keeping the id of the A2A message a run was created for. */
export const MESSAGE_ID_KEY = 'a2a_message_id';

const isRecord = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function contentOf(message: Message): { text: string | undefined; data: JsonObject } {
  const texts: string[] = [];
  const data: JsonObject = {};
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data' && isRecord(content.value))
      Object.assign(data, content.value);
  }
  return { text: texts.length ? texts.join('\n') : undefined, data };
}

/** A message as a graph's input: its text a user message, its data parts input values. */
export function graphInputOf(message: Message): JsonObject {
  const { text, data } = contentOf(message);
  return text === undefined ? data : { ...data, messages: [{ role: 'user', content: text }] };
}

/** A message as the answer to an interrupt: its data when it has any, else its text. */
export function resumeValueOf(message: Message): JsonValue {
  const { text, data } = contentOf(message);
  return Object.keys(data).length > 0 ? data : (text ?? '');
}

/** The parts of a graph input made by `graphInputOf`: its user messages' text, the rest data. */
function inputParts(input: JsonValue): ReturnType<typeof textPart>[] {
  if (!isRecord(input)) return input === null ? [] : [dataPart(input)];
  const { messages, ...data } = input;
  const texts = (Array.isArray(messages) ? messages : [])
    .filter(isRecord)
    .map((message) => message.content)
    .filter((content): content is string => typeof content === 'string');
  return [
    ...(texts.length ? [textPart(texts.join('\n'))] : []),
    ...(Object.keys(data).length ? [dataPart(data)] : []),
  ];
}

/**
 * The user's message a run was created for, rebuilt from the run: its input, or the value it
 * resumed the graph with; its id the message's own when the run kept it.
 */
export function userMessageOfRun(
  ids: Omit<MessageIds, 'messageId'>,
  created: Pick<RunCreatedData, 'run_id' | 'kwargs' | 'command' | 'metadata'>,
): Message {
  const kept = created.metadata[MESSAGE_ID_KEY];
  const messageId = typeof kept === 'string' ? kept : `${created.run_id}-input`;
  const resume = created.command?.resume;
  const parts =
    resume === undefined
      ? inputParts(created.kwargs.input)
      : [typeof resume === 'string' ? textPart(resume) : dataPart(resume)];
  return userMessage({ ...ids, messageId }, parts);
}
