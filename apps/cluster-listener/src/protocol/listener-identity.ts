import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateSealingKeys, isSealingPublicKey, type SealingKeys } from '#libs/sealed-box';
import type { KubeCluster } from '../kube/kube-cluster.js';

/** Where the listener keeps its key pair, so that it is the same listener after a restart. */
export interface IdentityStore {
  readonly where: string;
  load(): Promise<SealingKeys | undefined>;
  save(keys: SealingKeys): Promise<void>;
}

function keysOf(values: Readonly<Record<string, unknown>> | undefined): SealingKeys | undefined {
  const publicKey = values?.public_key;
  const privateKey = values?.private_key;
  if (typeof publicKey !== 'string' || typeof privateKey !== 'string') return undefined;
  if (!isSealingPublicKey(publicKey)) return undefined;
  return { publicKey, privateKey };
}

/** A file only its owner reads: for a listener run outside the cluster. */
export function fileIdentity(path: string): IdentityStore {
  return {
    where: path,
    async load() {
      const text = await readFile(path, 'utf8').catch(() => undefined);
      if (text === undefined) return undefined;
      return keysOf(JSON.parse(text) as Record<string, unknown>);
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
      return keysOf(await cluster.secretValues(namespace, name));
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
