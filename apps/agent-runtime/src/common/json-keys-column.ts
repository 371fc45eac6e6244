import type { ValueTransformer } from 'typeorm';
import { DomainError } from '#libs/domain';
import { encryptedFilterDetail, JsonKeyCipher } from '#libs/encryption';

/**
 * The cipher of LANGGRAPH_AES_JSON_KEYS for the read models, set once when the runtime opens its
 * database (before any projection runs): the columns below keep the named keys' values encrypted
 * in the table and give them back in clear to whoever reads the row through its entity.
 */
let cipher = new JsonKeyCipher([], Buffer.alloc(0));

export function useJsonKeyCipher(next: JsonKeyCipher): void {
  cipher = next;
}

export const jsonKeysColumn: ValueTransformer = {
  to: (value: unknown) => cipher.seal(value),
  from: (value: unknown) => cipher.open(value),
};

/** A value for a table written without its entity (raw SQL), its named keys encrypted. */
export function sealJsonKeys<T>(value: T): T {
  return cipher.seal(value);
}

/** A value read from the table without its entity (raw SQL), in clear. */
export function openJsonKeys<T>(value: T): T {
  return cipher.open(value);
}

/** Refuses (422) a filter naming an encrypted key: its values cannot be compared in SQL. */
export function refuseEncryptedFilter(filter: unknown): void {
  const named = cipher.namedIn(filter);
  if (named !== undefined) throw new DomainError('validation', encryptedFilterDetail(named));
}
