import { resolveResourceSpec, type ResourceSpec } from '#libs/resource-spec';
import type { AssignedDeployment, AssignedRevision } from '#libs/listener-protocol';
import { connectionProblem } from './database-connections.js';
import { effectiveResources } from './resource-defaults.js';
import type {
  ClusterRevision,
  IngressSource,
  RevisionSecret,
  SecretReference,
} from './cluster-revision.js';

/** How the listener was started: where it may put deployments, who reaches their runtimes. */
export interface ListenerPlacement {
  /** The namespaces it manages (its Role's); the first is where a deployment naming none goes. */
  readonly namespaces: readonly string[];
  readonly ingress: IngressSource;
}

/** The namespace a deployment's objects go to, or why there is none this listener may use. */
export function namespaceOf(
  assigned: Pick<AssignedDeployment, 'namespace'>,
  placement: ListenerPlacement,
): { readonly namespace: string } | { readonly problem: string } {
  const namespace = assigned.namespace ?? placement.namespaces[0];
  if (namespace === undefined) {
    return { problem: 'the deployment names no cluster_namespace and the listener manages none' };
  }
  if (!placement.namespaces.includes(namespace)) {
    return {
      problem: `namespace "${namespace}" is not one this listener manages (${placement.namespaces.join(', ')})`,
    };
  }
  return { namespace };
}

function secretReferencesOf(value: unknown): SecretReference[] | undefined {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) return undefined;
  const references = value.filter(
    (item): item is SecretReference =>
      typeof item === 'object' &&
      item !== null &&
      ['name', 'secret_name', 'secret_key'].every(
        (field) => typeof (item as Record<string, unknown>)[field] === 'string',
      ),
  );
  return references.length === value.length ? references : undefined;
}

function resourceSpecOf(value: unknown): ResourceSpec | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return undefined;
  return resolveResourceSpec(value);
}

/** A revision as the listener reads it from its assignment, before its database is made. */
export type AssignedClusterRevision = Omit<ClusterRevision, 'database'>;

/** What one revision's objects are rendered from, or why it cannot be rendered. */
export function clusterRevisionOf(input: {
  readonly assigned: AssignedDeployment;
  readonly revision: AssignedRevision;
  readonly namespace: string;
  readonly secrets: readonly RevisionSecret[];
  readonly ingress: IngressSource;
}): { readonly revision: AssignedClusterRevision } | { readonly problem: string } {
  const { assigned, revision } = input;
  if (!revision.image_uri) {
    return {
      problem:
        "the revision names no image_uri: build the application's image (berth build-image) and name it in image_uri",
    };
  }
  const secretReferences = secretReferencesOf(revision.secret_references);
  if (!secretReferences) return { problem: 'secret_references is not a list of SecretReference' };
  const resources = resourceSpecOf(revision.resource_spec);
  if (resources === undefined) return { problem: 'resource_spec is not an object' };
  const tooFew = connectionProblem(effectiveResources(resources));
  if (tooFew) return { problem: tooFew };
  return {
    revision: {
      deploymentId: assigned.deployment_id,
      deploymentName: assigned.name,
      revisionId: revision.revision_id,
      namespace: input.namespace,
      image: revision.image_uri,
      resources,
      env: revision.env,
      secrets: input.secrets,
      secretReferences,
      ingress: input.ingress,
    },
  };
}

/** The revision's secrets as the sealed box holds them (`[{name, value}]`), checked. */
export function revisionSecretsOf(opened: string): RevisionSecret[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(opened);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  const secrets = value.filter(
    (item): item is RevisionSecret =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as Record<string, unknown>).name === 'string' &&
      typeof (item as Record<string, unknown>).value === 'string',
  );
  return secrets.length === value.length ? secrets : undefined;
}
