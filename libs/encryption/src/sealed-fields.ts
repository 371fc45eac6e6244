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
}

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
    if (isClear(field, value)) clear[field] = value;
    else {
      secret[field] = value;
      secrets += 1;
    }
  }
  if (secrets === 0 && !always) return data;
  const text = Buffer.from(JSON.stringify(secret), 'utf8');
  const sealed: SealedFields = {
    key_id: keyId,
    bytes: text.length,
    value: encryptBytes(key, text, contextOf(keyId)),
  };
  return { ...clear, [SEALED_FIELD]: sealed as unknown as Json };
}

/** The sealed part of `data`, or undefined when it has none. */
export function sealedPartOf(data: JsonFields): SealedFields | undefined {
  const sealed = data[SEALED_FIELD];
  if (sealed === null || typeof sealed !== 'object' || Array.isArray(sealed)) return undefined;
  const { key_id: keyId, bytes, value } = sealed;
  if (typeof keyId !== 'string' || typeof value !== 'string' || typeof bytes !== 'number') {
    return undefined;
  }
  return { key_id: keyId, bytes, value };
}

/** `data` whole again, its sealed fields opened with the key `sealedPartOf` named. */
export function openFields(data: JsonFields, sealed: SealedFields, key: Buffer): JsonFields {
  const secret = JSON.parse(
    decryptBytes(key, sealed.value, contextOf(sealed.key_id)).toString('utf8'),
  ) as JsonFields;
  return { ...skeletonOf(data), ...secret };
}

/** `data` without its sealed fields: the skeleton left when their key is gone. */
export function skeletonOf(data: JsonFields): JsonFields {
  return Object.fromEntries(Object.entries(data).filter(([field]) => field !== SEALED_FIELD));
}
