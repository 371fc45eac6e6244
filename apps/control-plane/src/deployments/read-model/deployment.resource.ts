import type { DeploymentState, RevisionState } from '../domain/deployment.state.js';
import { SECRET_MASK } from '../../logs/secret-masker.js';

/** Secret values never leave the platform: responses carry only their names. */
export type MaskedSecret = { readonly name: string; readonly value: typeof SECRET_MASK };

const masked = (secrets: readonly { name: string }[]): MaskedSecret[] =>
  secrets.map((secret) => ({ name: secret.name, value: SECRET_MASK }));

export function toDeploymentResource(state: DeploymentState) {
  return {
    id: state.deployment_id,
    tenant_id: state.tenant_id,
    name: state.name,
    source: state.source,
    source_config: state.source_config,
    source_revision_config: state.source_revision_config,
    secrets: masked(state.secrets),
    secret_references: state.secret_references,
    created_at: state.created_at,
    updated_at: state.updated_at,
    status: state.status,
    latest_revision_id: state.latest_revision_id,
    active_revision_id: state.active_revision_id,
    image_version: null,
  };
}

export function toRevisionResource(state: DeploymentState, revision: RevisionState) {
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
    secrets: masked(revision.secrets),
    trigger: revision.trigger,
    active: state.active_revision_id === revision.revision_id,
  };
}

/** A deployment as the API shows it. */
export type DeploymentResource = ReturnType<typeof toDeploymentResource>;

/** A revision as the API shows it. */
export type RevisionResource = ReturnType<typeof toRevisionResource>;
