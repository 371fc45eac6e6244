import type { JsonObject, JsonValue } from '#libs/event-store';
import { isRecord } from './records.js';

interface Dictable {
  toDict(): { type: unknown; data: unknown };
}

function isDictable(value: object): value is Dictable {
  return 'toDict' in value && typeof value.toDict === 'function';
}

/** What `JSON.stringify` leaves out of an object and writes as null in an array. */
const OMITTED = Symbol('omitted');

/**
 * A plain-JSON copy of a value, detached from the live objects it came from, as the reference
 * server writes it: LangChain objects (messages) become `{ ...data, type }` from their `toDict()`,
 * everything else is what `JSON.parse(JSON.stringify(value))` gives (`toJSON` applied, `undefined`
 * and functions dropped, non-finite numbers null, a cycle a `TypeError`). A value with no JSON
 * form at all (`undefined`, a function) becomes null.
 *
 * It walks the value once instead of going through `JSON.stringify` with a replacer, which calls a
 * message's costly `toJSON()` only to have the replacer swap the result for the dict (that
 * `toDict()` makes with one more `toJSON()`), and then parsing the text back.
 */
export function toJsonValue(value: unknown): JsonValue {
  const copied = copyProperty(value, '', []);
  return copied === OMITTED ? null : copied;
}

/** One property as `JSON.stringify` serializes it: `toJSON`, then unboxing, then by type. */
function copyProperty(
  value: unknown,
  key: string,
  ancestors: object[],
): JsonValue | typeof OMITTED {
  if (typeof value === 'object' && value !== null && isDictable(value)) {
    const { type, data } = value.toDict();
    return copyObject({ ...(isRecord(data) ? data : {}), type }, ancestors);
  }
  const json = withToJson(value, key);
  switch (typeof json) {
    case 'string':
    case 'boolean':
      return json;
    case 'number':
      return finiteOrNull(json);
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      if (json === null) return null;
      if (json instanceof Number) return finiteOrNull(Number(json));
      if (json instanceof String) return String(json);
      if (json instanceof Boolean) return json.valueOf();
      if (json instanceof BigInt) throw new TypeError('Do not know how to serialize a BigInt');
      return Array.isArray(json) ? copyArray(json, ancestors) : copyObject(json, ancestors);
    case 'undefined':
    case 'function':
    case 'symbol':
      return OMITTED;
  }
}

/** What `toJSON(key)` makes of an object (or a BigInt) that has one; the value otherwise. */
function withToJson(value: unknown, key: string): unknown {
  const mayHaveToJson =
    (typeof value === 'object' && value !== null) ||
    typeof value === 'function' ||
    typeof value === 'bigint';
  if (!mayHaveToJson) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  return typeof toJSON === 'function'
    ? (toJSON as (key: string) => unknown).call(value, key)
    : value;
}

/** `-0` is written as `0`, and a number that is not finite as null. */
function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value + 0 : null;
}

function copyArray(array: readonly unknown[], ancestors: object[]): JsonValue[] {
  enter(array, ancestors);
  const copy: JsonValue[] = new Array<JsonValue>(array.length);
  for (let index = 0; index < array.length; index += 1) {
    const item = copyProperty(array[index], String(index), ancestors);
    copy[index] = item === OMITTED ? null : item;
  }
  ancestors.pop();
  return copy;
}

function copyObject(object: object, ancestors: object[]): JsonObject {
  enter(object, ancestors);
  const copy: JsonObject = {};
  const record = object as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = copyProperty(record[key], key, ancestors);
    if (item === OMITTED) continue;
    // A key named `__proto__` (JSON.parse makes such own properties) must stay a plain property.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      copy[key] = item;
    }
  }
  ancestors.pop();
  return copy;
}

function enter(value: object, ancestors: object[]): void {
  if (ancestors.includes(value)) throw new TypeError('Converting circular structure to JSON');
  ancestors.push(value);
}
