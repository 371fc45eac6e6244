import type { JsonValue } from '#libs/event-store';

interface Dictable {
  toDict(): { type: string; data: Record<string, unknown> };
}

function isDictable(value: unknown): value is Dictable {
  return (
    typeof value === 'object' &&
    value !== null &&
    'toDict' in value &&
    typeof value.toDict === 'function'
  );
}

/**
 * LangChain objects (messages) become the plain dicts that the reference server sends:
 * `{ ...data, type }`. Everything else as JSON.stringify would give it.
 */
export function toJsonValue(value: unknown): JsonValue {
  const text = JSON.stringify(
    value,
    function (this: Record<string, unknown>, key, replaced: unknown) {
      const raw = this[key];
      if (isDictable(raw)) {
        const { type, data } = raw.toDict();
        return { ...data, type };
      }
      return replaced;
    },
  );
  // JSON.stringify gives undefined (despite its type) for undefined and functions.
  return (text as string | undefined) === undefined ? null : (JSON.parse(text) as JsonValue);
}
