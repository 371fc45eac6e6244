import type { Logger } from '#libs/logging';
import type { SealingKeys } from '#libs/sealed-box';
import type { Listener } from '#libs/control-plane-client';
import { KubeCluster } from '../kube/kube-cluster.js';
import { ListenerClient } from '../protocol/listener-client.js';
import {
  fileIdentity,
  loadOrCreateKeys,
  secretIdentity,
  type IdentityStore,
} from '../protocol/listener-identity.js';
import { messageOf } from './failures.js';
import type { ListenerDeps } from './listener-deps.js';
import { ListenerLoop } from './listener-loop.js';
import type { ListenerSettings } from './listener-settings.js';
import { retrying, type RetryDelays } from './retrying.js';
import { ExternalDatabases, InClusterDatabases } from './revision-databases.js';

const RETRY_MS: RetryDelays = { first: 1_000, longest: 30_000 };

/**
 * This listener as the control plane knows it: the cluster listener registered with its public
 * key, or a new registration. The key survives restarts, so the listener stays the same one.
 */
export async function registeredListener(
  client: ListenerClient,
  settings: Pick<ListenerSettings, 'name' | 'namespaces'>,
  keys: SealingKeys,
): Promise<Listener> {
  const mine = (await client.allListeners()).find(
    (listener) =>
      listener.compute_type === 'cluster' && listener.compute_config?.public_key === keys.publicKey,
  );
  if (mine) return mine;
  return client.register(settings.name, {
    public_key: keys.publicKey,
    namespaces: [...settings.namespaces],
  });
}

/** `work`, tried again while it fails for the moment: a control plane starting later is waited for. */
function patiently<T>(
  log: Logger,
  doing: string,
  signal: AbortSignal,
  work: () => Promise<T>,
): Promise<T> {
  return retrying(work, {
    delays: RETRY_MS,
    signal,
    onRetry: (error, wait) => {
      log.warn(`${doing} failed, again in ${wait} ms: ${messageOf(error)}`);
    },
  });
}

function identityStore(settings: ListenerSettings, cluster: KubeCluster): IdentityStore {
  return settings.identity.kind === 'file'
    ? fileIdentity(settings.identity.path)
    : secretIdentity(cluster, settings.ownNamespace, settings.identity.name);
}

/** Runs the cluster listener until `signal` aborts: its key, its registration, its poll loop. */
export async function runListener(
  settings: ListenerSettings,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  const cluster = KubeCluster.connect(settings.kubeconfig);
  const client = new ListenerClient({
    baseUrl: settings.controlPlaneUrl,
    apiKey: settings.apiKey,
    apiKeyOrigin: 'BERTH_API_KEY',
  });
  const store = identityStore(settings, cluster);
  const { keys, created } = await patiently(
    log,
    `reading the key pair in ${store.where}`,
    signal,
    () => loadOrCreateKeys(store),
  );
  if (created) log.info(`made the listener's key pair and kept it in ${store.where}`);
  const listener = await patiently(log, 'registering with the control plane', signal, () =>
    registeredListener(client, settings, keys),
  );
  log.info(
    { listener_id: listener.id, namespaces: settings.namespaces },
    `listening as ${listener.name} (${listener.id}) to ${settings.controlPlaneUrl}`,
  );
  const deps: ListenerDeps = {
    cluster,
    client,
    listenerId: listener.id,
    privateKey: keys.privateKey,
    placement: {
      namespaces: settings.namespaces,
      ingress: {
        namespaceLabels: settings.ingressNamespaceLabels,
        listenerNamespace: settings.ownNamespace,
        metricsNamespaceLabels: settings.metricsNamespaceLabels,
      },
    },
    databases:
      settings.database.kind === 'in_cluster'
        ? new InClusterDatabases(cluster, settings.database.image)
        : new ExternalDatabases(
            settings.database.serverUrl,
            settings.database.reservedConnections,
            keys.privateKey,
          ),
    log,
    followEveryMs: settings.followEveryMs,
    retryMs: RETRY_MS,
  };
  await new ListenerLoop(deps).run(signal);
}
