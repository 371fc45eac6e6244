import { Service } from 'kubernetes-models/v1/Service';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import {
  DEPLOYMENT_LABEL,
  metadataOf,
  selectorLabels,
  type RenderContext,
} from './render-context.js';
import { RUNTIME_PORT } from './pod-template.js';

/** The label every pod of the cluster listener carries (see deploy/kubernetes/listener.yaml). */
export const LISTENER_POD_LABELS = { 'app.kubernetes.io/name': 'berth-listener' } as const;
/** The label Kubernetes gives every namespace, its name. */
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';
export const DATABASE_PORT = 5432;

/** The API servers behind one address in the namespace, on port 80. */
export function runtimeService(context: RenderContext): Service {
  return new Service({
    metadata: metadataOf(context, context.names.service, 'api'),
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(context, 'api'),
      ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
    },
  });
}

/**
 * The runtime's pods take connections on their port from the ingress controller's namespace, the
 * listener's pods and, when given, the namespace Prometheus scrapes from, only. Their own
 * connections out are not limited: graphs call model providers.
 */
export function runtimeNetworkPolicy(context: RenderContext): NetworkPolicy {
  const { ingress } = context.revision;
  return new NetworkPolicy({
    metadata: metadataOf(context, context.names.networkPolicy),
    spec: {
      podSelector: {
        matchLabels: { [DEPLOYMENT_LABEL]: context.revision.deploymentId },
        matchExpressions: [
          { key: 'berth.dev/component', operator: 'In', values: ['api', 'queue'] },
        ],
      },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            { namespaceSelector: { matchLabels: { ...ingress.namespaceLabels } } },
            {
              namespaceSelector: {
                matchLabels: { [NAMESPACE_NAME_LABEL]: ingress.listenerNamespace },
              },
              podSelector: { matchLabels: { ...LISTENER_POD_LABELS } },
            },
            ...(ingress.metricsNamespaceLabels
              ? [{ namespaceSelector: { matchLabels: { ...ingress.metricsNamespaceLabels } } }]
              : []),
          ],
          ports: [{ protocol: 'TCP', port: RUNTIME_PORT }],
        },
      ],
    },
  });
}

/** The deployment's database takes connections from its own runtime's pods only. */
export function databaseNetworkPolicy(context: RenderContext): NetworkPolicy {
  const runtimePods = (component: 'api' | 'queue') => ({
    podSelector: { matchLabels: selectorLabels(context, component) },
  });
  return new NetworkPolicy({
    metadata: metadataOf(context, context.names.databasePolicy, 'database'),
    spec: {
      podSelector: { matchLabels: selectorLabels(context, 'database') },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [runtimePods('api'), runtimePods('queue')],
          ports: [{ protocol: 'TCP', port: DATABASE_PORT }],
        },
      ],
    },
  });
}

/** A voluntary eviction (a node drained) takes one API server at a time. */
export function runtimeDisruptionBudget(context: RenderContext): PodDisruptionBudget {
  return new PodDisruptionBudget({
    metadata: metadataOf(context, context.names.disruptionBudget, 'api'),
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(context, 'api') } },
  });
}
