import type { Message } from '@a2a-js/sdk';
import type { JsonObject, JsonValue } from '#libs/event-store';

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
