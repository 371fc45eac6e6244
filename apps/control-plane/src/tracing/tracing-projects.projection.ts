import type { Projection } from '#libs/event-store';
import { DEPLOYMENT_STREAM_PREFIX } from '../deployments/domain/deployment.events.js';
import { TracingProjectEntity, type TracingProjectRow } from './tracing.entities.js';

/** A tracing project per deployment, named after it; it outlives the deployment for audits. */
export const tracingProjectsProjection: Projection<TracingProjectRow> = {
  name: 'tracing_projects',
  entity: TracingProjectEntity,
  key: 'deployment_id',
  keyOf: (event) =>
    event.type === 'DeploymentCreated' || event.type === 'DeploymentDeleted'
      ? event.streamId.slice(DEPLOYMENT_STREAM_PREFIX.length)
      : undefined,
  evolve: (row, event) => {
    if (event.type === 'DeploymentDeleted') {
      return row && { ...row, deployment_deleted_at: event.recordedAt };
    }
    const data = event.data as {
      deployment_id: string;
      tenant_id: string;
      name: string;
      tracing_project_id: string;
      created_at: string;
    };
    return {
      project_id: data.tracing_project_id,
      tenant_id: data.tenant_id,
      name: data.name,
      deployment_id: data.deployment_id,
      created_at: new Date(data.created_at),
      deployment_deleted_at: null,
    };
  },
};
