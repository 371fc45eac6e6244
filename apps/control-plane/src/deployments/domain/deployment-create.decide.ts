import { badRequest, conflict } from '#libs/domain';
import {
  checkApplicability,
  checkDeploymentName,
  checkSecretNames,
  checkSupportedSource,
  checkTagRule,
  fieldPath,
  isGiven,
  type SourceConfigInput,
} from './deployment-rules.js';
import type { DeploymentEvent } from './deployment.events.js';
import { type DeploymentState } from './deployment.state.js';
import {
  EMPTY_SOURCE_CONFIG,
  EMPTY_SOURCE_REVISION_CONFIG,
  type DeploymentSource,
  type SourceConfig,
} from './deployment.types.js';
import { resolveResourceSpec, resourceSpecProblems, type ResourceSpec } from '#libs/resource-spec';
import type { ListenerInfo } from '../../listeners/listener-info.js';
import type { DeploymentCommand } from './deployment.commands.js';

export function resolveSpec(input: Partial<ResourceSpec>): ResourceSpec {
  const spec = resolveResourceSpec(input);
  const [problem] = resourceSpecProblems(spec);
  if (problem) {
    throw badRequest(`source_config.resource_spec.${problem.field}: ${problem.message}`);
  }
  return spec;
}

/** Given fields over stored ones; null and absent keep the stored value. */
export function overlay<T extends object>(stored: T, given: Partial<Record<keyof T, unknown>>): T {
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

type CreateCommand = Extract<DeploymentCommand, { kind: 'create' }>;

/** What a git_host deployment must name: its integration, its repository and a ref. */
function checkGitHost(command: CreateCommand): void {
  const { source_config: config, source_revision_config: revisionConfig } = command;
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

/** Refuses a create whose fields do not fit its source, listener and names. */
function checkCreate(command: CreateCommand, state: DeploymentState): void {
  if (state.exists) throw conflict(`Deployment ${command.deployment_id} already exists`);
  checkDeploymentName(command.name);
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
  // An uploaded source may name its graph configuration with the PATCH that brings the tarball.
  if (source === 'git_host' && !isGiven(revisionConfig.graph_config_path)) {
    throw badRequest(`${fieldPath('graph_config_path')} is required for ${source} deployments`);
  }
  if (source === 'git_host') checkGitHost(command);
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
}

/** The deployment's stored settings: given fields over the defaults of its source. */
function sourceConfigOf(command: CreateCommand): SourceConfig {
  const { source, source_config: config } = command;
  const listenerConfig = config.listener_config;
  return {
    ...overlay(EMPTY_SOURCE_CONFIG, config),
    listener_config: isGiven(listenerConfig)
      ? { cluster_namespace: listenerConfig.cluster_namespace ?? null }
      : null,
    build_on_push: source === 'git_host' ? (config.build_on_push ?? false) : null,
    resource_spec: null,
  };
}

export function decideCreate(command: CreateCommand, state: DeploymentState): DeploymentEvent[] {
  checkCreate(command, state);
  const { source, source_config: config } = command;
  const specInput = config.resource_spec;
  const resourceSpec = isGiven(specInput) ? resolveSpec(specInput) : null;
  const sourceRevisionConfig = overlay(
    EMPTY_SOURCE_REVISION_CONFIG,
    command.source_revision_config,
  );
  const events: DeploymentEvent[] = [
    {
      type: 'DeploymentCreated',
      data: {
        deployment_id: command.deployment_id,
        tenant_id: command.tenant_id,
        name: command.name,
        source,
        source_config: sourceConfigOf(command),
        source_revision_config: sourceRevisionConfig,
        secrets: command.secrets,
        secret_references: command.secret_references,
        tracing_project_id: command.tracing_project_id,
        created_at: command.now,
      },
    },
  ];
  // An uploaded source has no revision until its tarball is uploaded and named in a PATCH.
  if (source === 'internal_source') return events;
  events.push({
    type: 'RevisionCreated',
    data: {
      revision_id: command.revision_id,
      source,
      source_revision_config: sourceRevisionConfig,
      resource_spec: resourceSpec,
      secrets: command.secrets,
      secrets_changed: command.secrets.map((secret) => secret.name),
      source_tarball_sha256: null,
      trigger: 'create',
      created_at: command.now,
    },
  });
  return events;
}
