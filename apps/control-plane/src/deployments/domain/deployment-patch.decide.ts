import { badRequest, conflict } from '#libs/domain';
import {
  checkApplicability,
  checkDeploymentName,
  checkSecretNames,
  checkSupportedSource,
  checkTagRule,
  fieldPath,
  IMMUTABLE_SOURCE_CONFIG_FIELDS,
  isGiven,
} from './deployment-rules.js';
import type { DeploymentEvent, RevisionCreatedData } from './deployment.events.js';
import { type DeploymentState } from './deployment.state.js';
import {
  type DeploymentSource,
  type SourceConfig,
  type SourceRevisionConfig,
} from './deployment.types.js';
import type { DeploymentCommand } from './deployment.commands.js';
import { resolveSpec, overlay } from './deployment-create.decide.js';
import { existing } from './deployment-existing.js';

function checkImmutable(
  command: Extract<DeploymentCommand, { kind: 'patch' }>,
  state: DeploymentState,
): void {
  // A name that could never have been given is refused as such (422), before immutability.
  if (isGiven(command.name)) checkDeploymentName(command.name);
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

type PatchCommand = Extract<DeploymentCommand, { kind: 'patch' }>;

/** What a PATCH asks for, checked against the deployment. */
type CheckedPatch = {
  readonly config: NonNullable<PatchCommand['source_config']>;
  readonly revisionConfig: NonNullable<PatchCommand['source_revision_config']>;
  readonly revisionSource: DeploymentSource;
  readonly nextRevisionConfig: SourceRevisionConfig;
};

function checkPatch(command: PatchCommand, state: DeploymentState): CheckedPatch {
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
  return { config, revisionConfig, revisionSource, nextRevisionConfig };
}

/** The deployment's own settings the PATCH changes, if any. */
function configChanged(
  command: PatchCommand,
  state: DeploymentState,
  { config }: CheckedPatch,
): DeploymentEvent[] {
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
  if (Object.keys(changed).length === 0 && !referencesChanged) return [];
  return [
    {
      type: 'DeploymentConfigChanged',
      data: {
        source_config: changed,
        ...(referencesChanged ? { secret_references: command.secret_references } : {}),
        updated_at: command.now,
      },
    },
  ];
}

/** The revision the PATCH makes: whenever it changes the source, the secrets or the resources. */
function newRevisionOf(
  command: PatchCommand,
  state: DeploymentState,
  patch: CheckedPatch,
): RevisionCreatedData | undefined {
  const { config, revisionConfig, revisionSource, nextRevisionConfig } = patch;
  const newRevision =
    Object.values(revisionConfig).some(isGiven) ||
    command.secrets !== null ||
    isGiven(config.resource_spec);
  if (!newRevision) return undefined;
  if (revisionSource === 'internal_source' && !isGiven(nextRevisionConfig.source_tarball_path)) {
    throw badRequest(
      `${fieldPath('source_tarball_path')} is required: upload the source with ` +
        'POST /v2/deployments/{id}/upload-url first',
    );
  }
  if (revisionSource === 'internal_source' && !isGiven(nextRevisionConfig.graph_config_path)) {
    throw badRequest(`${fieldPath('graph_config_path')} is required for internal_source revisions`);
  }
  const tarball = revisionConfig.source_tarball_path;
  return {
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
    source_tarball_sha256: isGiven(tarball)
      ? command.source_tarball_sha256
      : tarballShaOf(state, nextRevisionConfig.source_tarball_path),
  };
}

export function decidePatch(command: PatchCommand, state: DeploymentState): DeploymentEvent[] {
  const patch = checkPatch(command, state);
  const events = configChanged(command, state, patch);
  const revision = newRevisionOf(command, state, patch);
  return revision ? [...events, { type: 'RevisionCreated', data: revision }] : events;
}

/** The checksum recorded for a tarball the deployment's revisions were built from already. */
function tarballShaOf(state: DeploymentState, tarball: string | null): string | null {
  if (!tarball) return null;
  const revision = state.revisions.findLast(
    (candidate) => candidate.source_revision_config.source_tarball_path === tarball,
  );
  return revision?.source_tarball_sha256 ?? null;
}
