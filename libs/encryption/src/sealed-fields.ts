import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { decryptBytes, encryptBytes } from './aes-gcm.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonFields = { [key: string]: Json };

/** The field that holds an object's encrypted fields: the others stay in clear. */
export const SEALED_FIELD = '$encrypted';

export interface SealedFields {
  /** The data key that encrypts them (its id in the key store). */
  readonly key_id: string;
  /** How long their JSON text was, in bytes: what the audit may know of them. */
  readonly bytes: number;
  readonly value: string;
  /** Whether the text was deflated before it was encrypted (long texts: see `DEFLATE_FROM`). */
  readonly deflated?: true;
}

/**
 * From this length on, the JSON text is deflated (raw, level 1) before it is encrypted: a
 * ciphertext does not compress, so PostgreSQL's own compression of long values no longer works
 * for it, and the log would otherwise store, send and decode every long event whole.
 */
const DEFLATE_FROM = 1024;

const contextOf = (keyId: string): string => `berth fields\0${keyId}`;

/**
 * `data` with every field `isClear` refuses moved, as one JSON text, into `$encrypted` under the
 * key; when every field is clear, `data` itself, or with `always` an empty sealed part (so that
 * the event too is unreadable once the key is gone).
 */
export function sealFields(
  data: JsonFields,
  isClear: (field: string, value: Json) => boolean,
  keyId: string,
  key: Buffer,
  always = false,
): JsonFields {
  const clear: JsonFields = {};
  const secret: JsonFields = {};
  let secrets = 0;
  for (const [field, value] of Object.entries(data)) {
    if (isClear(field, value)) put(clear, field, value);
    else {
      put(secret, field, value);
      secrets += 1;
    }
  }
  if (secrets === 0 && !always) return data;
  const text = Buffer.from(JSON.stringify(secret), 'utf8');
  const deflated = text.length >= DEFLATE_FROM ? deflateRawSync(text, { level: 1 }) : undefined;
  const smaller = deflated && deflated.length < text.length ? deflated : undefined;
  const sealed: SealedFields = {
    key_id: keyId,
    bytes: text.length,
    value: encryptBytes(key, smaller ?? text, contextOf(keyId)),
    ...(smaller ? { deflated: true as const } : {}),
  };
  return { ...clear, [SEALED_FIELD]: sealed as unknown as Json };
}

/** The sealed part of `data`, or undefined when it has none. */
export function sealedPartOf(data: JsonFields): SealedFields | undefined {
  const sealed = data[SEALED_FIELD];
  if (sealed === null || typeof sealed !== 'object' || Array.isArray(sealed)) return undefined;
  const { key_id: keyId, bytes, value, deflated } = sealed;
  if (typeof keyId !== 'string' || typeof value !== 'string' || typeof bytes !== 'number') {
    return undefined;
  }
  return deflated === true
    ? { key_id: keyId, bytes, value, deflated }
    : { key_id: keyId, bytes, value };
}

/** `data` whole again, its sealed fields opened with the key `sealedPartOf` named. */
export function openFields(data: JsonFields, sealed: SealedFields, key: Buffer): JsonFields {
  const opened = decryptBytes(key, sealed.value, contextOf(sealed.key_id));
  const text = sealed.deflated ? inflateRawSync(opened, { maxOutputLength: sealed.bytes }) : opened;
  const secret = JSON.parse(text.toString('utf8')) as JsonFields;
  const whole = skeletonOf(data);
  for (const field in secret) put(whole, field, secret[field] as Json);
  return whole;
}

/** `data` without its sealed fields: the skeleton left when their key is gone. */
export function skeletonOf(data: JsonFields): JsonFields {
  const skeleton: JsonFields = {};
  for (const field in data) {
    if (field !== SEALED_FIELD) put(skeleton, field, data[field] as Json);
  }
  return skeleton;
}

/** Sets an own field, as JSON.parse does: a field named `__proto__` too. */
function put(target: JsonFields, field: string, value: Json): void {
  if (field === '__proto__') {
    Object.defineProperty(target, field, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[field] = value;
  }
}
