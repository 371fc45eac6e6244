import { domainEventOf } from '#libs/domain';
import type { Projection, RecordedEvent } from '#libs/event-store';
import { evolveDeployment, initialDeploymentState } from '../domain/deployment.evolve.js';
import { DEPLOYMENT_STREAM_PREFIX, type DeploymentEvent } from '../domain/deployment.events.js';
import { DeploymentEntity, type DeploymentRow } from './deployment.entity.js';

export function rowOf(state: DeploymentRow['state']): DeploymentRow | undefined {
  if (!state.exists || state.deleted || !state.deployment_id || !state.tenant_id) return undefined;
  const followsPushes = state.source === 'git_host' && state.source_config.build_on_push === true;
  return {
    deployment_id: state.deployment_id,
    tenant_id: state.tenant_id,
    name: state.name,
    status: state.status,
    deployment_type: state.source_config.deployment_type,
    created_at: new Date(state.created_at),
    updated_at: new Date(state.updated_at),
    push_repo_url: followsPushes ? state.source_config.repo_url : null,
    push_repo_ref: followsPushes ? state.source_revision_config.repo_ref : null,
    state,
  };
}

/** One row per live deployment, holding its folded state; a deleted deployment's row goes. */
export const deploymentsProjection: Projection<DeploymentRow> = {
  name: 'deployments',
  entity: DeploymentEntity,
  key: 'deployment_id',
  keyOf: (event: RecordedEvent) =>
    event.streamId.startsWith(DEPLOYMENT_STREAM_PREFIX)
      ? event.streamId.slice(DEPLOYMENT_STREAM_PREFIX.length)
      : undefined,
  evolve: (row, event) =>
    rowOf(
      evolveDeployment(row?.state ?? initialDeploymentState, domainEventOf<DeploymentEvent>(event)),
    ),
};
