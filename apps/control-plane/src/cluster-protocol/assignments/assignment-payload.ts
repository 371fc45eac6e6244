import { listenerSealingContext, type AssignedDeployment } from '#libs/listener-protocol';
import { sealFor } from '#libs/sealed-box';
import type { DeploymentState, RevisionState } from '../../deployments/domain/deployment.state.js';
import type { PlainSecret } from '../../secrets/secret-vault.js';

export interface RevisionSecrets {
  readonly env: Readonly<Record<string, string>>;
  readonly secrets: readonly PlainSecret[];
}

function deploymentPart(state: DeploymentState) {
  return {
    deployment_id: state.deployment_id ?? '',
    name: state.name,
    namespace: state.source_config.listener_config?.cluster_namespace ?? null,
  };
}

/** A deleted deployment, for its listener to tear down. */
export function tearDownAssignment(state: DeploymentState): AssignedDeployment {
  return { ...deploymentPart(state), action: 'tear_down', revision: null };
}

/** A revision to apply; its secrets are sealed here and nowhere else. */
export function applyAssignment(
  state: DeploymentState,
  revision: RevisionState,
  listener: { readonly id: string; readonly publicKey: string },
  opened: RevisionSecrets,
): AssignedDeployment {
  const base = deploymentPart(state);
  const context = listenerSealingContext(listener.id, base.deployment_id, revision.revision_id);
  return {
    ...base,
    action: 'apply',
    revision: {
      revision_id: revision.revision_id,
      status: revision.status,
      image_uri: revision.source_revision_config.image_uri ?? null,
      resource_spec: revision.resource_spec,
      secret_references: state.secret_references ?? [],
      env: opened.env,
      sealed_secrets: sealFor(listener.publicKey, JSON.stringify(opened.secrets), context),
    },
  };
}
