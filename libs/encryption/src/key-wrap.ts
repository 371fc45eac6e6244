import { decryptBytes, encryptBytes } from './aes-gcm.js';
import type { MasterKey } from './master-key.js';

/** A data key as the key store keeps it: wrapped by a master key, bound to its id and scope. */
export interface WrappedKey {
  readonly keyId: string;
  readonly scope: string;
  readonly masterKeyId: string;
  readonly wrapped: string;
}

const contextOf = (keyId: string, scope: string): string => `berth data key\0${keyId}\0${scope}`;

export function wrapDataKey(
  master: MasterKey,
  keyId: string,
  scope: string,
  dataKey: Buffer,
): WrappedKey {
  return {
    keyId,
    scope,
    masterKeyId: master.id,
    wrapped: encryptBytes(master.key, dataKey, contextOf(keyId, scope)),
  };
}

export class ForeignMasterKeyError extends Error {}

export function unwrapDataKey(master: MasterKey, wrapped: WrappedKey): Buffer {
  if (wrapped.masterKeyId !== master.id) {
    throw new ForeignMasterKeyError(
      `The data key ${wrapped.keyId} is wrapped by master key ${wrapped.masterKeyId}, not by the ` +
        `configured one (${master.id}): set the master key it was written with`,
    );
  }
  return decryptBytes(master.key, wrapped.wrapped, contextOf(wrapped.keyId, wrapped.scope));
}

/** The same data key under a new master key (rotation): the events it encrypts stay as they are. */
export function rewrapDataKey(from: MasterKey, to: MasterKey, wrapped: WrappedKey): WrappedKey {
  return wrapDataKey(to, wrapped.keyId, wrapped.scope, unwrapDataKey(from, wrapped));
}
