import type { ResourceSpec } from '#libs/resource-spec';

/** A secret the runtime reads from its environment; its value only ever travels to the cluster. */
export interface RevisionSecret {
  readonly name: string;
  readonly value: string;
}

/** An environment variable filled from a key of a Secret that already exists in the namespace. */
export interface SecretReference {
  readonly name: string;
  readonly secret_name: string;
  readonly secret_key: string;
}

/**
 * The deployment's database: a PostgreSQL StatefulSet the listener runs beside it (its password
 * made once and kept in the cluster), or a database on a PostgreSQL server the listener was given.
 * `masterKey`: the runtime's master key (BERTH_MASTER_KEY, base64 of 32 bytes), the same for every
 * pod and revision of the deployment, kept in its credentials Secret.
 */
export type RevisionDatabase = (
  | { readonly kind: 'in_cluster'; readonly password: string; readonly image: string }
  | { readonly kind: 'external'; readonly url: string }
) & { readonly masterKey?: string };

/** Who the runtime's network policy lets in. */
export interface IngressSource {
  /** Labels of the namespace the cluster's ingress controller runs in. */
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /** The namespace the listener's pods run in. */
  readonly listenerNamespace: string;
  /** Labels of the namespace Prometheus scrapes `/metrics` from, when the queue autoscales. */
  readonly metricsNamespaceLabels?: Readonly<Record<string, string>>;
}

/** Everything one revision's objects are rendered from. */
export interface ClusterRevision {
  readonly deploymentId: string;
  readonly deploymentName: string;
  readonly revisionId: string;
  /** `listener_config.cluster_namespace`. */
  readonly namespace: string;
  /** `image_uri`: the application built into Berth's runtime image (see `berth build-image`). */
  readonly image: string;
  /** The revision's stored resource spec; null fields take the defaults of resource-defaults.ts. */
  readonly resources: ResourceSpec | null;
  /** Plain variables the runtime is given (its API key digest, tracing endpoint, ...). */
  readonly env: Readonly<Record<string, string>>;
  readonly secrets: readonly RevisionSecret[];
  readonly secretReferences: readonly SecretReference[];
  readonly database: RevisionDatabase;
  readonly ingress: IngressSource;
}
