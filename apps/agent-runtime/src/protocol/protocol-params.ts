import type { JsonObject } from '#libs/event-store';
import { isJsonObject } from '../common/json-object.js';
import { ProtocolError } from '../protocol-events/protocol-event.js';

/** The parameters of a protocol command, read as their types require (else `invalid_argument`). */
export function objectParam(params: JsonObject, key: string): JsonObject | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) throw new ProtocolError('invalid_argument', `${key} must be an object`);
  return value;
}

export function stringParam(params: JsonObject, key: string): string | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new ProtocolError('invalid_argument', `${key} must be a non-empty string`);
  }
  return value;
}

export function requiredString(params: JsonObject, key: string, method: string): string {
  const value = stringParam(params, key);
  if (value === undefined) throw new ProtocolError('invalid_argument', `${method} requires ${key}`);
  return value;
}

export function namespaceParam(params: JsonObject): string[] {
  const value = params.namespace;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((part) => typeof part === 'string')) {
    throw new ProtocolError('invalid_argument', 'namespace must be an array of strings');
  }
  return value;
}
