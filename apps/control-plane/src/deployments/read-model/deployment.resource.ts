import type { DeploymentState, RevisionState } from '../domain/deployment.state.js';
import { SECRET_MASK } from '../../logs/secret-masker.js';

/** Secret values never leave the platform: responses carry only their names. */
export type MaskedSecret = { readonly name: string; readonly value: typeof SECRET_MASK };

export interface DeploymentResource {
  readonly id: DeploymentState['deployment_id'];
  readonly tenant_id: DeploymentState['tenant_id'];
  readonly name: string;
  readonly source: DeploymentState['source'];
  readonly source_config: DeploymentState['source_config'];
  readonly source_revision_config: DeploymentState['source_revision_config'];
  readonly secrets: MaskedSecret[];
  readonly secret_references: DeploymentState['secret_references'];
  readonly created_at: string;
  readonly updated_at: string;
  readonly status: DeploymentState['status'];
  readonly latest_revision_id: string | null;
  readonly active_revision_id: string | null;
  readonly image_version: null;
}

export interface RevisionResource {
  readonly id: string;
  readonly deployment_id: DeploymentState['deployment_id'];
  readonly created_at: string;
  readonly updated_at: string;
  readonly status: RevisionState['status'];
  readonly status_message: RevisionState['status_message'];
  readonly source: RevisionState['source'];
  readonly source_revision_config: RevisionState['source_revision_config'];
  readonly resource_spec: RevisionState['resource_spec'];
  readonly secrets: MaskedSecret[];
  readonly trigger: RevisionState['trigger'];
  readonly active: boolean;
}

const masked = (secrets: readonly { name: string }[]): MaskedSecret[] =>
  secrets.map((secret) => ({ name: secret.name, value: SECRET_MASK }));

export function toDeploymentResource(state: DeploymentState): DeploymentResource {
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

export function toRevisionResource(
  state: DeploymentState,
  revision: RevisionState,
): RevisionResource {
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
