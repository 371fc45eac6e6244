import { notFound } from '#libs/domain';
import { type DeploymentState } from './deployment.state.js';

export type Addressed = { readonly deployment_id: string; readonly tenant_id: string };

/** Another tenant's deployment is as absent as a deleted one. */
export function existing(state: DeploymentState, command: Addressed): DeploymentState {
  if (!state.exists || state.deleted || state.tenant_id !== command.tenant_id) {
    throw notFound(`Deployment ${command.deployment_id} not found`);
  }
  return state;
}
