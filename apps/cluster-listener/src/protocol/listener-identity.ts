import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '#libs/config';
import { generateSealingKeys, isSealingPublicKey, type SealingKeys } from '#libs/sealed-box';
import type { KubeCluster } from '../kube/kube-cluster.js';

/** Where the listener keeps its key pair, so that it is the same listener after a restart. */
export interface IdentityStore {
  readonly where: string;
  /** The kept key pair; undefined when none is kept; throws when what is kept is not one. */
  load(): Promise<SealingKeys | undefined>;
  save(keys: SealingKeys): Promise<void>;
}

/**
 * The key pair kept in `where`. What is there and is not one is an error, never a reason to make
 * a new pair: that would make the listener another one, with its deployments left behind.
 */
function keysOf(values: unknown, where: string): SealingKeys {
  const kept = (values ?? {}) as { public_key?: unknown; private_key?: unknown };
  const { public_key: publicKey, private_key: privateKey } = kept;
  if (
    typeof publicKey !== 'string' ||
    typeof privateKey !== 'string' ||
    !isSealingPublicKey(publicKey)
  ) {
    throw new ConfigError(
      `${where} holds no listener key pair (public_key, private_key): mend or remove it`,
    );
  }
  return { publicKey, privateKey };
}

/** A file only its owner reads: for a listener run outside the cluster. */
export function fileIdentity(path: string): IdentityStore {
  return {
    where: path,
    async load() {
      const text = await readFile(path, 'utf8').catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      });
      if (text === undefined) return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return keysOf(parsed, path);
    },
    async save(keys) {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const text = JSON.stringify({ public_key: keys.publicKey, private_key: keys.privateKey });
      await writeFile(path, text, { mode: 0o600, flag: 'wx' });
    },
  };
}

/** A Secret in the listener's own namespace: for the listener's pod. */
export function secretIdentity(
  cluster: KubeCluster,
  namespace: string,
  name: string,
): IdentityStore {
  return {
    where: `Secret ${namespace}/${name}`,
    async load() {
      const values = await cluster.secretValues(namespace, name);
      return values ? keysOf(values, `Secret ${namespace}/${name}`) : undefined;
    },
    async save(keys) {
      await cluster.putSecret(namespace, name, {
        public_key: keys.publicKey,
        private_key: keys.privateKey,
      });
    },
  };
}

/** The listener's key pair: the one kept, or a new one, kept before it is used. */
export async function loadOrCreateKeys(store: IdentityStore): Promise<{
  readonly keys: SealingKeys;
  readonly created: boolean;
}> {
  const kept = await store.load();
  if (kept) return { keys: kept, created: false };
  const keys = generateSealingKeys();
  await store.save(keys);
  return { keys, created: true };
}
