import { unwrapDataKey, wrapDataKey, type WrappedKey } from './key-wrap.js';
import type { MasterKey } from './master-key.js';

/**
 * What wraps the key store's data keys: the master key, or an application's own encryption
 * (a KMS behind `encryption.path`), called once per data key made or opened, never per event.
 */
export interface KeyWrapper {
  /** Stored beside each data key it wrapped (`master_key_id`). */
  readonly id: string;
  /** Where it comes from, to say so (never a key). */
  readonly source: string;
  wrap(keyId: string, scope: string, dataKey: Buffer): Promise<string>;
  unwrap(wrapped: WrappedKey): Promise<Buffer>;
}

export function isKeyWrapper(value: MasterKey | KeyWrapper): value is KeyWrapper {
  return typeof (value as Partial<KeyWrapper>).wrap === 'function';
}

export function masterKeyWrapper(master: MasterKey): KeyWrapper {
  return {
    id: master.id,
    source: master.source,
    wrap: (keyId, scope, dataKey) =>
      Promise.resolve(wrapDataKey(master, keyId, scope, dataKey).wrapped),
    unwrap: (wrapped) => Promise.resolve(unwrapDataKey(master, wrapped)),
  };
}
