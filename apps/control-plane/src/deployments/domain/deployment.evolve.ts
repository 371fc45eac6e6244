import type { DeploymentEvent, RevisionCreatedData } from './deployment.events.js';
import { type DeploymentState, type RevisionState } from './deployment.state.js';
import {
  EMPTY_SOURCE_CONFIG,
  EMPTY_SOURCE_REVISION_CONFIG,
  type DeploymentSource,
} from './deployment.types.js';

export const initialDeploymentState: DeploymentState = {
  exists: false,
  deleted: false,
  deployment_id: null,
  tenant_id: null,
  name: '',
  source: 'internal_source',
  source_config: EMPTY_SOURCE_CONFIG,
  source_revision_config: EMPTY_SOURCE_REVISION_CONFIG,
  secrets: [],
  secret_references: null,
  tracing_project_id: null,
  status: 'AWAITING_DATABASE',
  created_at: '',
  updated_at: '',
  latest_revision_id: null,
  active_revision_id: null,
  revisions: [],
  uploads: [],
  port: null,
  database: null,
  version: 0,
};

function withRevision(
  state: DeploymentState,
  revisionId: string,
  change: (revision: RevisionState) => RevisionState,
): RevisionState[] {
  return state.revisions.map((revision) =>
    revision.revision_id === revisionId ? change(revision) : revision,
  );
}

/** Why a new revision waits: nothing on this machine runs container images. */
function queuedMessage(state: DeploymentState, source: DeploymentSource): string | null {
  if (source !== 'external_container') return null;
  return (
    `waiting for the cluster listener ${state.source_config.listener_id ?? ''} to pick it up: ` +
    'this control plane does not run container images itself'
  );
}

type RevisionEvent = Extract<
  DeploymentEvent,
  {
    type:
      | 'RevisionCreated'
      | 'RevisionStatusChanged'
      | 'RevisionSourceResolved'
      | 'RevisionRedeployRequested';
  }
>;
type DeploymentOnlyEvent = Exclude<DeploymentEvent, RevisionEvent>;

const REVISION_EVENTS: ReadonlySet<string> = new Set<RevisionEvent['type']>([
  'RevisionCreated',
  'RevisionStatusChanged',
  'RevisionSourceResolved',
  'RevisionRedeployRequested',
]);

const isRevisionEvent = (event: DeploymentEvent): event is RevisionEvent =>
  REVISION_EVENTS.has(event.type);

/** A new revision, queued: the deployment's settings become the revision's. */
function revisionCreated(state: DeploymentState, data: RevisionCreatedData): DeploymentState {
  return {
    ...state,
    source_config: { ...state.source_config, resource_spec: data.resource_spec },
    source_revision_config: data.source_revision_config,
    secrets: data.secrets,
    latest_revision_id: data.revision_id,
    updated_at: data.created_at,
    revisions: [
      ...state.revisions,
      {
        ...data,
        status: 'QUEUED',
        status_message: queuedMessage(state, data.source),
        updated_at: data.created_at,
        requested_at_position: state.version,
      },
    ],
  };
}

/** What an event about one of its revisions changes. */
function evolveRevisionEvent(state: DeploymentState, event: RevisionEvent): DeploymentState {
  switch (event.type) {
    case 'RevisionCreated':
      return revisionCreated(state, event.data);
    case 'RevisionStatusChanged':
      return {
        ...state,
        revisions: withRevision(state, event.data.revision_id, (revision) => ({
          ...revision,
          status: event.data.status,
          status_message: event.data.message,
          updated_at: event.data.at,
        })),
      };
    case 'RevisionSourceResolved': {
      const sha = event.data.repo_commit_sha;
      const latest = state.latest_revision_id === event.data.revision_id;
      return {
        ...state,
        source_revision_config: latest
          ? { ...state.source_revision_config, repo_commit_sha: sha }
          : state.source_revision_config,
        revisions: withRevision(state, event.data.revision_id, (revision) => ({
          ...revision,
          source_revision_config: { ...revision.source_revision_config, repo_commit_sha: sha },
          commits_since: event.data.commits_since ?? null,
        })),
      };
    }
    case 'RevisionRedeployRequested':
      return {
        ...state,
        updated_at: event.data.at,
        revisions: withRevision(state, event.data.revision_id, (revision) => ({
          ...revision,
          status: 'QUEUED',
          status_message: 'redeploy requested',
          updated_at: event.data.at,
          requested_at_position: state.version,
        })),
      };
  }
}

/** What an event about the deployment itself changes. */
function evolveDeploymentEvent(
  state: DeploymentState,
  event: DeploymentOnlyEvent,
): DeploymentState {
  switch (event.type) {
    case 'DeploymentCreated': {
      const { data } = event;
      return {
        ...state,
        exists: true,
        deployment_id: data.deployment_id,
        tenant_id: data.tenant_id,
        name: data.name,
        source: data.source,
        source_config: data.source_config,
        source_revision_config: data.source_revision_config,
        secrets: data.secrets,
        secret_references: data.secret_references,
        tracing_project_id: data.tracing_project_id,
        status: 'AWAITING_DATABASE',
        created_at: data.created_at,
        updated_at: data.created_at,
      };
    }
    case 'DeploymentConfigChanged':
      return {
        ...state,
        source_config: { ...state.source_config, ...event.data.source_config },
        secret_references:
          event.data.secret_references === undefined
            ? state.secret_references
            : event.data.secret_references,
        updated_at: event.data.updated_at,
      };
    case 'UploadUrlIssued':
      return {
        ...state,
        uploads: [
          ...state.uploads,
          { object_path: event.data.object_path, expires_at: event.data.expires_at },
        ],
      };
    case 'DeploymentStatusChanged':
      return { ...state, status: event.data.status, updated_at: event.data.at };
    case 'DeploymentUrlAssigned':
      return {
        ...state,
        port: event.data.port,
        database: event.data.database,
        source_config: { ...state.source_config, custom_url: event.data.custom_url },
        updated_at: event.data.at,
      };
    case 'RevisionActivated':
      return { ...state, active_revision_id: event.data.revision_id, updated_at: event.data.at };
    case 'DeploymentDeleteRequested':
      return { ...state, status: 'AWAITING_DELETE', updated_at: event.data.at };
    case 'DeploymentDeletionStalled': {
      const { revision_id: revisionId, message } = event.data;
      if (revisionId === null) return state;
      return {
        ...state,
        revisions: withRevision(state, revisionId, (revision) => ({
          ...revision,
          status_message: message,
        })),
      };
    }
    case 'DeploymentDeleted':
      return { ...state, deleted: true, updated_at: event.data.at };
  }
}

function evolveEvent(state: DeploymentState, event: DeploymentEvent): DeploymentState {
  return isRevisionEvent(event)
    ? evolveRevisionEvent(state, event)
    : evolveDeploymentEvent(state, event);
}

export function evolveDeployment(state: DeploymentState, event: DeploymentEvent): DeploymentState {
  return { ...evolveEvent(state, event), version: state.version + 1 };
}
