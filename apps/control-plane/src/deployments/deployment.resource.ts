import type { DeploymentState, RevisionState } from './deployment.state.js';
import { SECRET_MASK } from '../logs/secret-masker.js';

/** Secret values never leave the platform: responses carry only their names. */

export function toDeploymentResource(state: DeploymentState): object {
  return {
    id: state.deployment_id,
    tenant_id: state.tenant_id,
    name: state.name,
    source: state.source,
    source_config: state.source_config,
    source_revision_config: state.source_revision_config,
    secrets: state.secrets.map((secret) => ({ name: secret.name, value: SECRET_MASK })),
    secret_references: state.secret_references,
    created_at: state.created_at,
    updated_at: state.updated_at,
    status: state.status,
    latest_revision_id: state.latest_revision_id,
    active_revision_id: state.active_revision_id,
    image_version: null,
  };
}

export function toRevisionResource(state: DeploymentState, revision: RevisionState): object {
  return {
    id: revision.revision_id,
    deployment_id: state.deployment_id,
    created_at: revision.created_at,
    updated_at: revision.updated_at,
    status: revision.status,
    status_message: revision.status_message,
    source: revision.source,
    source_revision_config: revision.source_revision_config,
    resource_spec: revision.resource_spec,
    secrets: revision.secrets.map((secret) => ({ name: secret.name, value: SECRET_MASK })),
    trigger: revision.trigger,
    active: state.active_revision_id === revision.revision_id,
  };
}
