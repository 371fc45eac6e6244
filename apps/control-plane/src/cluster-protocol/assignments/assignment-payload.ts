import { sealFor } from '#libs/sealed-box';
import type { ClusterAssignment } from '../../deployments/domain/cluster-listener.js';
import type { DeploymentState } from '../../deployments/domain/deployment.state.js';
import type { PlainSecret } from '../../secrets/secret-vault.js';

/** One deployment as its cluster listener is told it. */
export interface AssignedDeployment {
  readonly deployment_id: string;
  readonly name: string;
  readonly namespace: string | null;
  readonly action: 'apply' | 'tear_down';
  readonly revision: AssignedRevision | null;
}

export interface AssignedRevision {
  readonly revision_id: string;
  readonly status: string;
  readonly image_uri: string | null;
  readonly resource_spec: unknown;
  readonly secret_references: unknown;
  /** Plain settings of the runtime: who may call it, where it reports its runs. */
  readonly env: Readonly<Record<string, string>>;
  /** The revision's secrets (and the runtime's tracing token), sealed for the listener's key. */
  readonly sealed_secrets: string;
}

/** What a deployment's secrets are sealed under: they open for that listener and revision only. */
export const sealingContext = (listenerId: string, deploymentId: string, revisionId: string) =>
  `berth-listener:${listenerId}:${deploymentId}:${revisionId}`;

export interface RevisionSecrets {
  readonly env: Readonly<Record<string, string>>;
  readonly secrets: readonly PlainSecret[];
}

/** The wire form of a deployment's assignment; the secrets are sealed here and nowhere else. */
export function assignedDeployment(
  state: DeploymentState,
  assignment: Exclude<ClusterAssignment, { action: 'none' }>,
  listener: { readonly id: string; readonly publicKey: string },
  revisionSecrets: RevisionSecrets | undefined,
): AssignedDeployment {
  const deploymentId = state.deployment_id ?? '';
  const base = {
    deployment_id: deploymentId,
    name: state.name,
    namespace: state.source_config.listener_config?.cluster_namespace ?? null,
  };
  if (assignment.action === 'tear_down') return { ...base, action: 'tear_down', revision: null };
  if (!revisionSecrets)
    throw new Error(`the secrets of revision ${assignment.revision.revision_id} were not opened`);
  const { revision } = assignment;
  const context = sealingContext(listener.id, deploymentId, revision.revision_id);
  return {
    ...base,
    action: 'apply',
    revision: {
      revision_id: revision.revision_id,
      status: revision.status,
      image_uri: revision.source_revision_config.image_uri ?? null,
      resource_spec: revision.resource_spec,
      secret_references: state.secret_references ?? [],
      env: revisionSecrets.env,
      sealed_secrets: sealFor(listener.publicKey, JSON.stringify(revisionSecrets.secrets), context),
    },
  };
}
