import { conflict, notFound } from '#libs/domain';
import type { DeploymentCommand } from './deployment.commands.js';
import type { DeploymentEvent } from './deployment.events.js';
import { findRevision, type DeploymentState } from './deployment.state.js';
import type { DeploymentStatus, RevisionStatus } from './deployment.types.js';

/** What the listener running a deployment reports: provisioning, each revision's steps, tear-down. */
export type ListenerCommand = Extract<
  DeploymentCommand,
  {
    kind:
      | 'provisioned'
      | 'revision_status'
      | 'source_resolved'
      | 'activate'
      | 'torn_down'
      | 'tear_down_failed';
  }
>;

export const NEXT_STATUSES: Readonly<Record<RevisionStatus, readonly RevisionStatus[]>> = {
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

export function decideListener(
  command: ListenerCommand,
  state: DeploymentState,
): DeploymentEvent[] {
  switch (command.kind) {
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
            commits_since: command.commits_since,
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
    case 'tear_down_failed': {
      if (!state.exists || state.deleted || state.status !== 'AWAITING_DELETE') return [];
      const latest = state.revisions.at(-1);
      // Said once per reason: the retries that fail the same way change nothing.
      if (latest?.status_message === command.message) return [];
      return [
        {
          type: 'DeploymentDeletionStalled',
          data: {
            revision_id: latest?.revision_id ?? null,
            message: command.message,
            at: command.now,
          },
        },
      ];
    }
  }
}
