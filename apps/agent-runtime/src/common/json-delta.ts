import type { JsonObject, JsonValue } from '#libs/event-store';
import { isJsonObject } from './json-object.js';

/**
 * An object stored as what changed since a base object: each key in `prefixes` holds the first n
 * items of the base's array followed by the items stored under it; each key in `unchanged` holds
 * the base's value, `null` standing in its place (so the keys keep their order); every other key
 * is stored whole.
 */
export interface ObjectDelta {
  readonly value: JsonObject;
  readonly prefixes: Record<string, number>;
  readonly unchanged: string[];
}

/** Values smaller than this are stored whole even when unchanged: a reference would not pay. */
const SMALLEST_REFERENCED_TEXT = 64;

/**
 * `next` against `base`: arrays that begin with some of the base's items (a list that gained
 * items, or lost or replaced some after them), and values equal to the base's, refer to it.
 * Undefined when no key does. Folded, it is the same JSON value (key order aside, which
 * PostgreSQL's jsonb does not keep either).
 */
export function objectDelta(base: JsonObject, next: JsonObject): ObjectDelta | undefined {
  const prefixes: Record<string, number> = {};
  const unchanged: string[] = [];
  const value: JsonObject = {};
  let referenced = false;
  for (const key of Object.keys(next)) {
    const item = next[key] as JsonValue;
    const previous = Object.prototype.hasOwnProperty.call(base, key) ? base[key] : undefined;
    const shared =
      Array.isArray(item) && Array.isArray(previous) ? sharedPrefix(previous, item) : 0;
    if (Array.isArray(item) && shared > 0) {
      prefixes[key] = shared;
      value[key] = item.slice(shared);
      referenced = true;
    } else if (previous !== undefined && worthReferencing(item) && sameJson(previous, item)) {
      unchanged.push(key);
      value[key] = null;
      referenced = true;
    } else {
      value[key] = item;
    }
  }
  return referenced ? { value, prefixes, unchanged } : undefined;
}

/** The whole object a delta stands for, given its base whole. */
export function foldObjectDelta(base: JsonObject, delta: ObjectDelta): JsonObject {
  const unchanged = new Set(delta.unchanged);
  const whole: JsonObject = {};
  for (const key of Object.keys(delta.value)) {
    const stored = delta.value[key] as JsonValue;
    const prefix = delta.prefixes[key];
    if (prefix !== undefined) {
      const items = base[key];
      if (!Array.isArray(items) || items.length < prefix || !Array.isArray(stored)) {
        throw new Error(`${key} does not extend its base's ${prefix} items`);
      }
      whole[key] = [...items.slice(0, prefix), ...stored];
    } else if (unchanged.has(key)) {
      const kept = base[key];
      if (kept === undefined) throw new Error(`${key} has no value in its base`);
      whole[key] = kept;
    } else {
      whole[key] = stored;
    }
  }
  return whole;
}

/** How many leading items `next` shares with `previous`. */
function sharedPrefix(previous: readonly JsonValue[], next: readonly JsonValue[]): number {
  const most = Math.min(previous.length, next.length);
  let shared = 0;
  while (shared < most && sameJson(previous[shared], next[shared])) shared += 1;
  return shared;
}

function worthReferencing(value: JsonValue): boolean {
  if (typeof value === 'string') return value.length >= SMALLEST_REFERENCED_TEXT;
  return typeof value === 'object' && value !== null;
}

/**
 * Deep equality of JSON values, whatever the order of their keys: PostgreSQL's jsonb keeps no key
 * order, so a base read from the log may list them otherwise than they were written.
 */
export function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let keys = 0;
  for (const key in a) {
    if (!Object.prototype.hasOwnProperty.call(b, key) || !sameJson(a[key], b[key])) return false;
    keys += 1;
  }
  return keys === Object.keys(b).length;
}

/** The `prefixes` and `unchanged` of a stored delta's description, checked. */
export function parseDeltaReferences(
  description: JsonObject,
  fail: (reason: string) => Error,
): Pick<ObjectDelta, 'prefixes' | 'unchanged'> {
  const { prefixes, unchanged } = description;
  if (
    !isJsonObject(prefixes) ||
    !Object.values(prefixes).every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0)
  ) {
    throw fail('prefixes is not a map of item counts');
  }
  if (!Array.isArray(unchanged) || !unchanged.every((key) => typeof key === 'string')) {
    throw fail('unchanged is not a list of keys');
  }
  return { prefixes: prefixes as Record<string, number>, unchanged };
}
