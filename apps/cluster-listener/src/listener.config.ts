import { join } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { ConfigError, envInteger, envText, type Environment } from '#libs/config';
import { isDns1123Label } from './domain/kube-names.js';
import type { ListenerSettings } from './listener/listener-settings.js';

export const DEFAULT_DATABASE_IMAGE = 'pgvector/pgvector:pg16';
const DEFAULT_IDENTITY_SECRET = 'berth-listener-identity';
const DEFAULT_INGRESS_LABELS = 'kubernetes.io/metadata.name=ingress-nginx';

export const LISTENER_HELP = `Usage: berth listener [options]

Runs a cluster listener: it registers with the control plane at BERTH_HOST_URL with the tenant's
key BERTH_API_KEY (compute type cluster), polls it for the deployments naming it, renders each
revision into Kubernetes objects, applies them with server-side apply and reports how the
rollout went. Meant to run in the cluster (deploy/kubernetes/listener.yaml); outside it, it uses
KUBECONFIG or ~/.kube/config. See docs/kubernetes.md.

  --name NAME              its name when it registers (BERTH_LISTENER_NAME; default: cluster)
  --namespace NS           a namespace it deploys to; repeat for more (BERTH_LISTENER_NAMESPACES,
                           comma-separated; default: its own). The first takes deployments that
                           name no cluster_namespace.
  --own-namespace NS       the namespace it runs in (BERTH_LISTENER_OWN_NAMESPACE; default: its
                           pod's, else default)
  --identity WHERE         where its key pair is kept: secret:NAME (a Secret in its own namespace)
                           or a file (BERTH_LISTENER_IDENTITY; default: secret:berth-listener-identity
                           in a pod, else <BERTH_DATA_DIR>/listener-identity.json)
  --ingress-namespace K=V  labels of the ingress controller's namespace, whose pods may reach the
                           runtimes (BERTH_INGRESS_NAMESPACE_LABELS; default:
                           kubernetes.io/metadata.name=ingress-nginx)
  --metrics-namespace K=V  labels of the namespace Prometheus scrapes the runtimes' /metrics from,
                           for the queue's autoscaler (BERTH_METRICS_NAMESPACE_LABELS; default:
                           none may)
  --kubeconfig FILE        a kubeconfig instead of KUBECONFIG, ~/.kube/config or the pod's account
  --database-image IMAGE   the PostgreSQL each deployment runs in the cluster
                           (BERTH_LISTENER_DATABASE_IMAGE; default: ${DEFAULT_DATABASE_IMAGE})

BERTH_LISTENER_DATABASE_URL names a PostgreSQL server to give each deployment a database and a
role of its own on instead (the listener's login must create roles and databases there).`;

export const LISTENER_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  namespace: { type: 'string', multiple: true },
  'own-namespace': { type: 'string' },
  identity: { type: 'string' },
  'ingress-namespace': { type: 'string' },
  'metrics-namespace': { type: 'string' },
  kubeconfig: { type: 'string' },
  'database-image': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** What `berth listener` was given on its command line. */
export interface ListenerFlags {
  readonly name?: string;
  readonly namespace?: readonly string[];
  readonly 'own-namespace'?: string;
  readonly identity?: string;
  readonly 'ingress-namespace'?: string;
  readonly 'metrics-namespace'?: string;
  readonly kubeconfig?: string;
  readonly 'database-image'?: string;
}

/** What the listener finds where it runs. */
export interface ListenerPlaceFacts {
  /** The namespace of the pod's service account, when it runs in a pod. */
  readonly podNamespace: string | undefined;
  readonly dataDir: string;
}

/** A namespace's or a Secret's name that Kubernetes takes. */
function kubeName(value: string, where: string): string {
  if (!isDns1123Label(value)) {
    throw new ConfigError(`${where}: "${value}" is not a Kubernetes name (a DNS-1123 label)`);
  }
  return value;
}

function controlPlaneUrl(value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new ConfigError(`BERTH_HOST_URL must be an http(s) URL, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

function labelsOf(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [key, value, ...rest] = pair.split('=');
    if (!key || value === undefined || rest.length > 0) {
      throw new ConfigError(`${where} must be labels as key=value[,key=value], got "${text}"`);
    }
    labels[key] = value;
  }
  if (Object.keys(labels).length === 0) throw new ConfigError(`${where} names no label`);
  return labels;
}

function identityOf(value: string | undefined, facts: ListenerPlaceFacts) {
  if (value === undefined) {
    return facts.podNamespace
      ? { kind: 'secret' as const, name: DEFAULT_IDENTITY_SECRET }
      : { kind: 'file' as const, path: join(facts.dataDir, 'listener-identity.json') };
  }
  if (!value.startsWith('secret:')) return { kind: 'file' as const, path: value };
  return {
    kind: 'secret' as const,
    name: kubeName(value.slice('secret:'.length), '--identity'),
  };
}

/** The listener's settings from its flags, then its environment, then where it runs. */
export function listenerSettingsOf(
  flags: ListenerFlags,
  env: Environment,
  facts: ListenerPlaceFacts,
): ListenerSettings {
  const hostUrl = envText(env.BERTH_HOST_URL);
  if (!hostUrl) throw new ConfigError('BERTH_HOST_URL must name the control plane to listen to');
  const apiKey = envText(env.BERTH_API_KEY);
  if (!apiKey) throw new ConfigError("BERTH_API_KEY must hold the tenant's API key");
  const ownNamespace = kubeName(
    flags['own-namespace'] ??
      envText(env.BERTH_LISTENER_OWN_NAMESPACE) ??
      facts.podNamespace ??
      'default',
    "the listener's own namespace",
  );
  const listed = flags.namespace?.length
    ? flags.namespace
    : (envText(env.BERTH_LISTENER_NAMESPACES)
        ?.split(',')
        .map((item) => item.trim())
        .filter(Boolean) ?? []);
  const namespaces = (listed.length ? listed : [ownNamespace]).map((namespace) =>
    kubeName(namespace, '--namespace'),
  );
  const serverUrl = envText(env.BERTH_LISTENER_DATABASE_URL);
  const metricsLabels = flags['metrics-namespace'] ?? envText(env.BERTH_METRICS_NAMESPACE_LABELS);
  return {
    controlPlaneUrl: controlPlaneUrl(hostUrl),
    apiKey,
    name: flags.name ?? envText(env.BERTH_LISTENER_NAME) ?? 'cluster',
    namespaces: [...new Set(namespaces)],
    ownNamespace,
    ingressNamespaceLabels: labelsOf(
      flags['ingress-namespace'] ??
        envText(env.BERTH_INGRESS_NAMESPACE_LABELS) ??
        DEFAULT_INGRESS_LABELS,
      '--ingress-namespace',
    ),
    metricsNamespaceLabels: metricsLabels
      ? labelsOf(metricsLabels, '--metrics-namespace')
      : undefined,
    identity: identityOf(flags.identity ?? envText(env.BERTH_LISTENER_IDENTITY), facts),
    kubeconfig: flags.kubeconfig,
    database: serverUrl
      ? {
          kind: 'external',
          serverUrl,
          reservedConnections: envInteger(
            'BERTH_DB_RESERVED_CONNECTIONS',
            env.BERTH_DB_RESERVED_CONNECTIONS,
            10,
            { min: 0, max: 100_000 },
          ),
        }
      : {
          kind: 'in_cluster',
          image:
            flags['database-image'] ??
            envText(env.BERTH_LISTENER_DATABASE_IMAGE) ??
            DEFAULT_DATABASE_IMAGE,
        },
    followEveryMs: 2_000,
  };
}
