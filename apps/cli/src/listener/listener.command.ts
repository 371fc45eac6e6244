import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createLogger, logSettingsFrom } from '#libs/logging';
import { runListener } from '../../../cluster-listener/src/listener/start-listener.js';
import type { CliEnvironment } from '../cli.config.js';
import { DEFAULT_DATABASE_IMAGE, listenerSettingsOf } from './listener-options.js';

const POD_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

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

export async function listener(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      help: { type: 'boolean', short: 'h' },
      name: { type: 'string' },
      namespace: { type: 'string', multiple: true },
      'own-namespace': { type: 'string' },
      identity: { type: 'string' },
      'ingress-namespace': { type: 'string' },
      'metrics-namespace': { type: 'string' },
      kubeconfig: { type: 'string' },
      'database-image': { type: 'string' },
    },
  });
  if (values.help) {
    console.log(LISTENER_HELP);
    return;
  }
  const podNamespace = (await readFile(POD_NAMESPACE_FILE, 'utf8').catch(() => '')).trim();
  const settings = listenerSettingsOf(values, process.env, {
    podNamespace: podNamespace || undefined,
    dataDir: env.dataDir,
  });
  const log = createLogger('cluster-listener', logSettingsFrom(process.env, env.stdoutIsTty));
  const stopped = new AbortController();
  const stop = (): void => {
    stopped.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await runListener(settings, log, stopped.signal);
  log.info('stopped');
}
