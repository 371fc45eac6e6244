/**
 * Conversion of LangGraph stream payloads into plain JSON values, the way the reference
 * agent server writes them to the wire.
 *
 * The reference serializes every SSE payload with a `JSON.stringify` replacer that turns any
 * object exposing `toDict()` (LangChain messages) into `{ ...data, type }` instead of the
 * LangChain constructor envelope that `toJSON()` would produce. Everything else goes through
 * plain `JSON.stringify` semantics (`toJSON`, dropped `undefined`, ...).
 */

interface DictConvertible {
  toDict(): { readonly type: unknown; readonly data: unknown };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A shallow copy of a record without one key, other keys keeping their order. */
export function withoutKey(record: Record<string, unknown>, key: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([name]) => name !== key));
}

function isDictConvertible(value: unknown): value is DictConvertible {
  return isRecord(value) && typeof value['toDict'] === 'function';
}

function toMessageDict(value: DictConvertible): Record<string, unknown> {
  const { type, data } = value.toDict();
  return { ...(isRecord(data) ? data : {}), type };
}

function messageDictReplacer(this: unknown, key: string, value: unknown): unknown {
  // `value` has already been through `toJSON`; look at the raw property to find messages.
  const raw: unknown = isRecord(this) ? this[key] : undefined;
  return isDictConvertible(raw) ? toMessageDict(raw) : value;
}

/**
 * Returns a plain-JSON copy of a payload (messages as dicts), detached from the live objects
 * of the running graph. `JSON.stringify` of the result equals the reference's wire text.
 * A payload with no JSON representation (`undefined`, a function) becomes `null`.
 */
export function toWireJson(value: unknown): unknown {
  const text = JSON.stringify(value, messageDictReplacer) as string | undefined;
  return text === undefined ? null : (JSON.parse(text) as unknown);
}
