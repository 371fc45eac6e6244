import { join } from 'node:path';
import { envInteger, envText, type Environment } from '#libs/config';
import type { ListenerSettings } from '../../../cluster-listener/src/listener/listener-settings.js';
import { UsageError } from '../commands/scripts.js';
import { checkHostUrl } from '../deploy/connection.js';

export const DEFAULT_DATABASE_IMAGE = 'pgvector/pgvector:pg16';
const DEFAULT_IDENTITY_SECRET = 'berth-listener-identity';
const DEFAULT_INGRESS_LABELS = 'kubernetes.io/metadata.name=ingress-nginx';
const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

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
  if (!DNS_1123_LABEL.test(value)) {
    throw new UsageError(`${where}: "${value}" is not a Kubernetes name (a DNS-1123 label)`);
  }
  return value;
}

function labelsOf(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [key, value, ...rest] = pair.split('=');
    if (!key || value === undefined || rest.length > 0) {
      throw new UsageError(`${where} must be labels as key=value[,key=value], got "${text}"`);
    }
    labels[key] = value;
  }
  if (Object.keys(labels).length === 0) throw new UsageError(`${where} names no label`);
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
  if (!hostUrl) throw new UsageError('BERTH_HOST_URL must name the control plane to listen to');
  const apiKey = envText(env.BERTH_API_KEY);
  if (!apiKey) throw new UsageError("BERTH_API_KEY must hold the tenant's API key");
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
    controlPlaneUrl: checkHostUrl(hostUrl),
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
