import type { IngressSource } from '../domain/cluster-revision.js';

/** Where the listener keeps its key pair. */
export type IdentitySetting =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'secret'; readonly name: string };

/** Where the deployments' databases go. */
export type DatabaseSetting =
  | { readonly kind: 'in_cluster'; readonly image: string }
  | { readonly kind: 'external'; readonly serverUrl: string; readonly reservedConnections: number };

/** How `berth listener` was started (see docs/kubernetes.md for each). */
export interface ListenerSettings {
  readonly controlPlaneUrl: string;
  readonly apiKey: string;
  readonly name: string;
  /** The namespaces it may put deployments in; the first takes those that name none. */
  readonly namespaces: readonly string[];
  /** The namespace its own pod runs in: its identity Secret, the runtimes' network policy. */
  readonly ownNamespace: string;
  readonly ingressNamespaceLabels: IngressSource['namespaceLabels'];
  /** The namespace Prometheus scrapes the runtimes from, let through their network policy. */
  readonly metricsNamespaceLabels: IngressSource['metricsNamespaceLabels'];
  readonly identity: IdentitySetting;
  /** A kubeconfig file; else KUBECONFIG, ~/.kube/config or the pod's service account. */
  readonly kubeconfig: string | undefined;
  readonly database: DatabaseSetting;
  readonly followEveryMs: number;
}
