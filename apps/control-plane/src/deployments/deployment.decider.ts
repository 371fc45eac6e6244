import type { Decider } from '#libs/event-store';
import { badRequest, conflict, notFound } from '#libs/http';
import {
  checkApplicability,
  checkSecretNames,
  checkSupportedSource,
  checkTagRule,
  fieldPath,
  IMMUTABLE_SOURCE_CONFIG_FIELDS,
  isBuildable,
  isGiven,
  type SourceConfigInput,
  type SourceRevisionConfigInput,
} from './deployment-rules.js';
import type { DeploymentEvent, RevisionCreatedData } from './deployment.events.js';
import {
  findRevision,
  TERMINAL_REVISION_STATUSES,
  type DeploymentState,
  type RevisionState,
} from './deployment.state.js';
import {
  EMPTY_SOURCE_CONFIG,
  EMPTY_SOURCE_REVISION_CONFIG,
  type DeploymentSource,
  type DeploymentStatus,
  type RevisionStatus,
  type SealedSecret,
  type SecretReference,
  type SourceConfig,
  type SourceRevisionConfig,
} from './deployment.types.js';
import { resolveResourceSpec, resourceSpecProblems, type ResourceSpec } from './resource-spec.js';

/** The listener a request names, as the caller found it; null when no such listener exists. */
export type ListenerInfo = { id: string; compute_type: 'local' | 'cluster' } | null;

export type SecretsChange = { sealed: SealedSecret[]; changed: string[] };

export type DeploymentCommand =
  | {
      readonly kind: 'create';
      readonly deployment_id: string;
      readonly tenant_id: string;
      readonly name: string;
      readonly source: DeploymentSource;
      readonly source_config: SourceConfigInput;
      readonly source_revision_config: SourceRevisionConfigInput;
      readonly secrets: SealedSecret[];
      readonly secret_references: SecretReference[] | null;
      readonly listener: ListenerInfo;
      /** The git_host integration of the tenant. */
      readonly integration_id: string;
      readonly revision_id: string;
      readonly tracing_project_id: string;
      readonly now: string;
    }
  | {
      readonly kind: 'patch';
      readonly deployment_id: string;
      readonly tenant_id: string;
      /** Immutable top-level fields, when the body names them. */
      readonly name?: string | null;
      readonly source?: DeploymentSource | null;
      readonly revision_source: DeploymentSource | null;
      readonly source_config: SourceConfigInput | null;
      readonly source_revision_config: SourceRevisionConfigInput | null;
      readonly secrets: SecretsChange | null;
      readonly secret_references: SecretReference[] | null;
      readonly revision_id: string;
      readonly trigger: 'patch' | 'push';
      readonly now: string;
    }
  | {
      readonly kind: 'issue_upload';
      readonly deployment_id: string;
      readonly tenant_id: string;
      readonly object_path: string;
      readonly expires_at: string;
      readonly now: string;
    }
  | {
      readonly kind: 'redeploy';
      readonly deployment_id: string;
      readonly tenant_id: string;
      readonly revision_id: string;
      readonly now: string;
    }
  | {
      readonly kind: 'delete';
      readonly deployment_id: string;
      readonly tenant_id: string;
      readonly now: string;
    }
  // What the listener reports as it provisions, builds and deploys.
  | {
      readonly kind: 'provisioned';
      readonly custom_url: string;
      readonly port: number;
      readonly database: string;
      readonly now: string;
    }
  | {
      readonly kind: 'revision_status';
      readonly revision_id: string;
      readonly status: RevisionStatus;
      readonly message: string | null;
      readonly now: string;
    }
  | {
      readonly kind: 'source_resolved';
      readonly revision_id: string;
      readonly repo_commit_sha: string;
      readonly now: string;
    }
  | { readonly kind: 'activate'; readonly revision_id: string; readonly now: string }
  | { readonly kind: 'torn_down'; readonly now: string };

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

function evolveEvent(state: DeploymentState, event: DeploymentEvent): DeploymentState {
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
    case 'RevisionCreated': {
      const { data } = event;
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
        })),
      };
    }
    case 'RevisionActivated':
      return { ...state, active_revision_id: event.data.revision_id, updated_at: event.data.at };
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
    case 'DeploymentDeleteRequested':
      return { ...state, status: 'AWAITING_DELETE', updated_at: event.data.at };
    case 'DeploymentDeleted':
      return { ...state, deleted: true, updated_at: event.data.at };
  }
}

export function evolveDeployment(state: DeploymentState, event: DeploymentEvent): DeploymentState {
  return { ...evolveEvent(state, event), version: state.version + 1 };
}

type Addressed = { readonly deployment_id: string; readonly tenant_id: string };

/** Another tenant's deployment is as absent as a deleted one. */
function existing(state: DeploymentState, command: Addressed): DeploymentState {
  if (!state.exists || state.deleted || state.tenant_id !== command.tenant_id) {
    throw notFound(`Deployment ${command.deployment_id} not found`);
  }
  return state;
}

function resolveSpec(input: Partial<ResourceSpec>): ResourceSpec {
  const spec = resolveResourceSpec(input);
  const [problem] = resourceSpecProblems(spec);
  if (problem) {
    throw badRequest(`source_config.resource_spec.${problem.field}: ${problem.message}`);
  }
  return spec;
}

/** Given fields over stored ones; null and absent keep the stored value. */
function overlay<T extends object>(stored: T, given: Partial<Record<keyof T, unknown>>): T {
  const result = { ...stored };
  for (const [key, value] of Object.entries(given)) {
    if (isGiven(value) && key in stored) (result as Record<string, unknown>)[key] = value;
  }
  return result;
}

function checkListener(
  source: DeploymentSource,
  config: SourceConfigInput,
  listener: ListenerInfo,
): void {
  if (source !== 'external_container') return;
  if (!isGiven(config.listener_id)) {
    throw badRequest(
      'source_config.listener_id is required for external_container deployments ' +
        '(GET /v2/listeners lists them)',
    );
  }
  if (!listener) {
    throw badRequest(`source_config.listener_id ${config.listener_id} is not a known listener`);
  }
  if (listener.compute_type !== 'cluster') {
    throw badRequest(
      `source_config.listener_id names the ${listener.compute_type} listener, which cannot run ` +
        'container images: register a cluster listener with POST /v2/listeners',
    );
  }
}

function decideCreate(
  command: Extract<DeploymentCommand, { kind: 'create' }>,
  state: DeploymentState,
): DeploymentEvent[] {
  if (state.exists) throw conflict(`Deployment ${command.deployment_id} already exists`);
  const { source, source_config: config, source_revision_config: revisionConfig } = command;
  checkSupportedSource(source, 'source');
  checkApplicability(source, { ...config, ...revisionConfig });
  if (isGiven(command.secret_references) && source !== 'external_container') {
    throw badRequest('secret_references is only for external_container deployments');
  }
  if (isGiven(revisionConfig.source_tarball_path)) {
    throw badRequest(
      `${fieldPath('source_tarball_path')} must come from ` +
        `POST /v2/deployments/{id}/upload-url: create the deployment, upload, then PATCH it`,
    );
  }
  if (isBuildable(source) && !isGiven(revisionConfig.graph_config_path)) {
    throw badRequest(`${fieldPath('graph_config_path')} is required for ${source} deployments`);
  }
  if (source === 'git_host') {
    for (const field of ['integration_id', 'repo_url'] as const) {
      if (!isGiven(config[field])) {
        throw badRequest(`${fieldPath(field)} is required for git_host deployments`);
      }
    }
    if (config.integration_id !== command.integration_id) {
      throw badRequest(
        `${fieldPath('integration_id')} is not an integration of this tenant ` +
          '(GET /v1/integrations/git_host/install gives it)',
      );
    }
    if (!isGiven(revisionConfig.repo_ref)) {
      throw badRequest(`${fieldPath('repo_ref')} is required for git_host deployments`);
    }
    checkTagRule(config.build_on_push ?? null, revisionConfig.repo_ref);
  }
  if (source === 'external_container' && !isGiven(revisionConfig.image_uri)) {
    throw badRequest(`${fieldPath('image_uri')} is required for external_container deployments`);
  }
  checkListener(source, config, command.listener);
  if (command.listener?.compute_type !== 'cluster' && isGiven(config.listener_config)) {
    throw badRequest(
      `${fieldPath('listener_config')} is only for listeners of compute type cluster`,
    );
  }
  checkSecretNames(command.secrets.map((secret) => secret.name));
  const { resource_spec: specInput, listener_config: listenerConfig, ...rest } = config;
  const resourceSpec = isGiven(specInput) ? resolveSpec(specInput) : null;
  const sourceConfig: SourceConfig = {
    ...overlay(EMPTY_SOURCE_CONFIG, rest),
    listener_config: isGiven(listenerConfig)
      ? { cluster_namespace: listenerConfig.cluster_namespace ?? null }
      : null,
    build_on_push: source === 'git_host' ? (config.build_on_push ?? false) : null,
    resource_spec: null,
  };
  const sourceRevisionConfig = overlay(EMPTY_SOURCE_REVISION_CONFIG, revisionConfig);
  const events: DeploymentEvent[] = [
    {
      type: 'DeploymentCreated',
      data: {
        deployment_id: command.deployment_id,
        tenant_id: command.tenant_id,
        name: command.name,
        source,
        source_config: sourceConfig,
        source_revision_config: sourceRevisionConfig,
        secrets: command.secrets,
        secret_references: command.secret_references,
        tracing_project_id: command.tracing_project_id,
        created_at: command.now,
      },
    },
  ];
  // An uploaded source has no revision until its tarball is uploaded and named in a PATCH.
  if (source !== 'internal_source') {
    events.push({
      type: 'RevisionCreated',
      data: {
        revision_id: command.revision_id,
        source,
        source_revision_config: sourceRevisionConfig,
        resource_spec: resourceSpec,
        secrets: command.secrets,
        secrets_changed: command.secrets.map((secret) => secret.name),
        trigger: 'create',
        created_at: command.now,
      },
    });
  }
  return events;
}

function checkImmutable(
  command: Extract<DeploymentCommand, { kind: 'patch' }>,
  state: DeploymentState,
): void {
  if (isGiven(command.name) && command.name !== state.name) {
    throw badRequest('name cannot be changed after creation');
  }
  if (isGiven(command.source) && command.source !== state.source) {
    throw badRequest('source cannot be changed after creation');
  }
  const config = command.source_config ?? {};
  for (const field of IMMUTABLE_SOURCE_CONFIG_FIELDS) {
    const value = config[field];
    if (isGiven(value) && value !== state.source_config[field]) {
      throw badRequest(`${fieldPath(field)} cannot be changed after creation`);
    }
  }
  const namespace = config.listener_config?.cluster_namespace;
  if (isGiven(namespace) && namespace !== state.source_config.listener_config?.cluster_namespace) {
    throw badRequest('source_config.listener_config.cluster_namespace cannot be changed');
  }
}

function revisionSourceOf(
  command: Extract<DeploymentCommand, { kind: 'patch' }>,
  state: DeploymentState,
): DeploymentSource {
  const requested = command.revision_source;
  if (!isGiven(requested) || requested === state.source) return state.source;
  checkSupportedSource(requested, 'revision_source');
  if (state.source === 'git_host' && requested === 'internal_source') return requested;
  throw badRequest(`revision_source ${requested} cannot be used with a ${state.source} deployment`);
}

function decidePatch(
  command: Extract<DeploymentCommand, { kind: 'patch' }>,
  state: DeploymentState,
): DeploymentEvent[] {
  existing(state, command);
  if (state.status === 'AWAITING_DELETE') throw conflict('The deployment is being deleted');
  checkImmutable(command, state);
  const given = command.source_config ?? {};
  // A client may send back the URL the platform set; only a change is refused.
  const config =
    state.source !== 'external_container' && given.custom_url === state.source_config.custom_url
      ? { ...given, custom_url: null }
      : given;
  const revisionConfig = command.source_revision_config ?? {};
  const revisionSource = revisionSourceOf(command, state);
  checkApplicability(state.source, config);
  checkApplicability(revisionSource, revisionConfig);
  const tarball = revisionConfig.source_tarball_path;
  if (isGiven(tarball) && !state.uploads.some((upload) => upload.object_path === tarball)) {
    throw badRequest(
      `${fieldPath('source_tarball_path')} ${tarball} was not issued for this deployment ` +
        'by POST /v2/deployments/{id}/upload-url',
    );
  }
  const nextRevisionConfig: SourceRevisionConfig = {
    ...overlay(state.source_revision_config, revisionConfig),
    repo_commit_sha: null,
  };
  const buildOnPush = config.build_on_push ?? state.source_config.build_on_push;
  checkTagRule(buildOnPush, nextRevisionConfig.repo_ref);
  if (command.secrets) checkSecretNames(command.secrets.sealed.map((secret) => secret.name));
  if (isGiven(command.secret_references) && state.source !== 'external_container') {
    throw badRequest('secret_references is only for external_container deployments');
  }
  if (command.secret_references) {
    checkSecretNames(command.secret_references.map((reference) => reference.name));
  }

  const events: DeploymentEvent[] = [];
  const changed: Partial<SourceConfig> = {};
  for (const field of [
    'build_on_push',
    'custom_url',
    'install_command',
    'build_command',
  ] as const) {
    const value = config[field];
    if (isGiven(value) && value !== state.source_config[field]) {
      (changed as Record<string, unknown>)[field] = value;
    }
  }
  const referencesChanged =
    isGiven(command.secret_references) &&
    JSON.stringify(command.secret_references) !== JSON.stringify(state.secret_references);
  if (Object.keys(changed).length > 0 || referencesChanged) {
    events.push({
      type: 'DeploymentConfigChanged',
      data: {
        source_config: changed,
        ...(referencesChanged ? { secret_references: command.secret_references } : {}),
        updated_at: command.now,
      },
    });
  }

  const newRevision =
    Object.values(revisionConfig).some(isGiven) ||
    command.secrets !== null ||
    isGiven(config.resource_spec);
  if (!newRevision) return events;
  if (revisionSource === 'internal_source' && !isGiven(nextRevisionConfig.source_tarball_path)) {
    throw badRequest(
      `${fieldPath('source_tarball_path')} is required: upload the source with ` +
        'POST /v2/deployments/{id}/upload-url first',
    );
  }
  const revision: RevisionCreatedData = {
    revision_id: command.revision_id,
    source: revisionSource,
    source_revision_config: nextRevisionConfig,
    resource_spec: isGiven(config.resource_spec)
      ? resolveSpec(config.resource_spec)
      : state.source_config.resource_spec,
    secrets: command.secrets?.sealed ?? state.secrets,
    secrets_changed: command.secrets?.changed ?? [],
    trigger: command.trigger,
    created_at: command.now,
  };
  return [...events, { type: 'RevisionCreated', data: revision }];
}

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
