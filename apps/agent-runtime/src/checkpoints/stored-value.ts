import type { JsonValue } from '#libs/event-store';
import type { StoredValue } from './checkpoint-events.js';
import { rememberTextLength } from './event-size.js';

/** The part of LangGraph's `SerializerProtocol` the saver uses (any copy of the library fits). */
export interface CheckpointSerde {
  dumpsTyped(data: unknown): Promise<[string, Uint8Array]>;
  loadsTyped(type: string, data: Uint8Array | string): Promise<unknown>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

/**
 * PostgreSQL's jsonb refuses `\u0000` and unpaired surrogates (JSON.stringify escapes lone
 * surrogates as `\udXXX`; paired ones stay raw characters). A literal backslash before such text
 * also matches: that value is then merely kept as base64.
 */
const JSONB_UNSAFE = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

/**
 * Serializes a value with the saver's serializer and keeps it as an auditor can read it: the
 * serializer's JSON as JSON, any other type (or JSON that would not come back byte for byte) as
 * base64 with its type.
 */
export async function encodeValue(serde: CheckpointSerde, value: unknown): Promise<StoredValue> {
  const [type, bytes] = await serde.dumpsTyped(value);
  if (type === 'json') {
    const json = readableJson(bytes, writesStringifiedJson(serde));
    if (json !== undefined) {
      const stored: StoredValue = { type: 'json', value: json };
      // What the checkpoint cache counts this value as: the text it was parsed from.
      rememberTextLength(stored, bytes.byteLength);
      return stored;
    }
  }
  return {
    type,
    base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  };
}

/**
 * Gives back what the serializer's `loadsTyped` makes of the bytes `dumpsTyped` produced. LangGraph's
 * own serializer is given the JSON as text, which it would otherwise decode from bytes.
 */
export async function decodeValue(serde: CheckpointSerde, stored: StoredValue): Promise<unknown> {
  if ('base64' in stored) {
    return serde.loadsTyped(stored.type, Uint8Array.from(Buffer.from(stored.base64, 'base64')));
  }
  const text = JSON.stringify(stored.value);
  return serde.loadsTyped(
    stored.type,
    writesStringifiedJson(serde) ? text : utf8Encoder.encode(text),
  );
}

/**
 * LangGraph's `JsonPlusSerializer` writes `JSON.stringify`'s text (with a replacer), which parses
 * back to a value that stringifies to the same text, and reads JSON given as a string.
 */
function writesStringifiedJson(serde: CheckpointSerde): boolean {
  return serde.constructor.name === 'JsonPlusSerializer';
}

/**
 * The parsed JSON when it re-serializes to exactly the same text (so nothing is lost to number
 * precision or formatting) and PostgreSQL's jsonb can store it; undefined otherwise. Text known to
 * be `JSON.stringify`'s (`stringified`) is not serialized again to be compared.
 */
export function readableJson(bytes: Uint8Array, stringified = false): JsonValue | undefined {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  if (JSONB_UNSAFE.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return stringified || JSON.stringify(parsed) === text ? (parsed as JsonValue) : undefined;
}
