import { isJsonObject } from '../common/json-object.js';
import type { JsonValue } from '#libs/event-store';
import type { ProtocolCommand } from '../protocol-events/protocol-event.js';

/** A command as the protocol defines it (integer id, string method, object params), or why not. */
export function parseProtocolCommand(body: unknown): ProtocolCommand | string {
  if (!isJsonObject(body as JsonValue)) return 'A protocol command must be a JSON object';
  const { id, method, params } = body as Record<string, JsonValue>;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
    return 'A protocol command must have an integer id';
  }
  if (typeof method !== 'string' || method === '') return 'A protocol command must have a method';
  if (params !== undefined && params !== null && !isJsonObject(params)) {
    return "A protocol command's params must be an object";
  }
  return { id, method, params: isJsonObject(params) ? params : {} };
}
