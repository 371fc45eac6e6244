import { badRequest, conflict, notFound, type Decider } from '#libs/domain';
import type { DeploymentEvent } from './deployment.events.js';
import {
  findRevision,
  TERMINAL_REVISION_STATUSES,
  type DeploymentState,
} from './deployment.state.js';
import type { DeploymentCommand } from './deployment.commands.js';
import { decideCreate } from './deployment-create.decide.js';
import { decidePatch } from './deployment-patch.decide.js';
import { decideListener } from './deployment-listener.decide.js';
import { existing } from './deployment-existing.js';
import { evolveDeployment, initialDeploymentState } from './deployment.evolve.js';

function decide(command: DeploymentCommand, state: DeploymentState): DeploymentEvent[] {
  switch (command.kind) {
    case 'create':
      return decideCreate(command, state);
    case 'patch':
      return decidePatch(command, state);
    case 'issue_upload':
      existing(state, command);
      if (state.source !== 'internal_source' && state.source !== 'git_host') {
        throw badRequest(`Uploads are only for internal_source deployments, not ${state.source}`);
      }
      return [
        {
          type: 'UploadUrlIssued',
          data: {
            object_path: command.object_path,
            expires_at: command.expires_at,
            issued_at: command.now,
          },
        },
      ];
    case 'redeploy': {
      existing(state, command);
      if (state.status === 'AWAITING_DELETE') throw conflict('The deployment is being deleted');
      const revision = findRevision(state, command.revision_id);
      if (!revision) throw notFound(`Revision ${command.revision_id} not found`);
      if (!TERMINAL_REVISION_STATUSES.has(revision.status)) {
        throw conflict(`Revision ${command.revision_id} is ${revision.status}: it is in progress`);
      }
      return [
        {
          type: 'RevisionRedeployRequested',
          data: { revision_id: command.revision_id, at: command.now },
        },
      ];
    }
    case 'delete':
      existing(state, command);
      if (state.status === 'AWAITING_DELETE') return [];
      return [{ type: 'DeploymentDeleteRequested', data: { at: command.now } }];
    case 'provisioned':
    case 'revision_status':
    case 'source_resolved':
    case 'activate':
    case 'torn_down':
    case 'tear_down_failed':
      return decideListener(command, state);
  }
}

export const deploymentDecider: Decider<DeploymentState, DeploymentCommand, DeploymentEvent> = {
  initialState: initialDeploymentState,
  evolve: evolveDeployment,
  decide,
};
