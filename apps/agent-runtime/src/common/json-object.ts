import type { JsonObject, JsonValue } from '#libs/event-store';

/** Whether a JSON value is an object (not an array, not null). */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
