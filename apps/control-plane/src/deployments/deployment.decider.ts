import { badRequest, conflict, notFound, type Decider } from '#libs/domain';
import type { DeploymentEvent } from './deployment.events.js';
import {
  findRevision,
  TERMINAL_REVISION_STATUSES,
  type DeploymentState,
} from './deployment.state.js';
import { type DeploymentStatus, type RevisionStatus } from './deployment.types.js';
import type { DeploymentCommand } from './deployment.commands.js';
import { decideCreate } from './deployment-create.decide.js';
import { decidePatch } from './deployment-patch.decide.js';
import { existing } from './deployment-existing.js';
import { evolveDeployment, initialDeploymentState } from './deployment.evolve.js';

const NEXT_STATUSES: Readonly<Record<RevisionStatus, readonly RevisionStatus[]>> = {
  CREATING: ['QUEUED', 'CREATE_FAILED'],
  QUEUED: ['AWAITING_BUILD', 'AWAITING_DEPLOY', 'SKIPPED', 'INTERRUPTED'],
  AWAITING_BUILD: ['BUILDING', 'SKIPPED', 'INTERRUPTED', 'BUILD_FAILED'],
  BUILDING: ['AWAITING_DEPLOY', 'BUILD_FAILED', 'AWAITING_BUILD', 'SKIPPED', 'INTERRUPTED'],
  AWAITING_DEPLOY: ['DEPLOYING', 'SKIPPED', 'INTERRUPTED', 'DEPLOY_FAILED'],
  DEPLOYING: ['DEPLOYED', 'DEPLOY_FAILED', 'AWAITING_DEPLOY', 'INTERRUPTED'],
  DEPLOYED: [],
  CREATE_FAILED: [],
  BUILD_FAILED: [],
  DEPLOY_FAILED: [],
  SKIPPED: [],
  INTERRUPTED: [],
  UNKNOWN: [],
};

function decideRevisionStatus(
  command: Extract<DeploymentCommand, { kind: 'revision_status' }>,
  state: DeploymentState,
): DeploymentEvent[] {
  const revision = findRevision(state, command.revision_id);
  if (!revision) throw notFound(`Revision ${command.revision_id} not found`);
  if (revision.status === command.status) return [];
  if (!NEXT_STATUSES[revision.status].includes(command.status)) {
    throw conflict(
      `Revision ${command.revision_id} cannot go from ${revision.status} to ${command.status}`,
    );
  }
  return [
    {
      type: 'RevisionStatusChanged',
      data: {
        revision_id: command.revision_id,
        status: command.status,
        message: command.message,
        at: command.now,
      },
    },
  ];
}

function statusChange(status: DeploymentStatus, now: string): DeploymentEvent {
  return { type: 'DeploymentStatusChanged', data: { status, at: now } };
}

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
      if (!state.exists || state.deleted || state.status !== 'AWAITING_DATABASE') return [];
      return [
        {
          type: 'DeploymentUrlAssigned',
          data: {
            custom_url: command.custom_url,
            port: command.port,
            database: command.database,
            at: command.now,
          },
        },
        statusChange('READY', command.now),
      ];
    case 'revision_status':
      return decideRevisionStatus(command, state);
    case 'source_resolved':
      if (!findRevision(state, command.revision_id)) {
        throw notFound(`Revision ${command.revision_id} not found`);
      }
      return [
        {
          type: 'RevisionSourceResolved',
          data: {
            revision_id: command.revision_id,
            repo_commit_sha: command.repo_commit_sha,
            at: command.now,
          },
        },
      ];
    case 'activate':
      if (!findRevision(state, command.revision_id)) {
        throw notFound(`Revision ${command.revision_id} not found`);
      }
      if (state.active_revision_id === command.revision_id) return [];
      return [
        {
          type: 'RevisionActivated',
          data: {
            revision_id: command.revision_id,
            previous_revision_id: state.active_revision_id,
            at: command.now,
          },
        },
      ];
    case 'torn_down':
      if (!state.exists || state.deleted) return [];
      return [{ type: 'DeploymentDeleted', data: { at: command.now } }];
  }
}

export const deploymentDecider: Decider<DeploymentState, DeploymentCommand, DeploymentEvent> = {
  initialState: initialDeploymentState,
  evolve: evolveDeployment,
  decide,
};
