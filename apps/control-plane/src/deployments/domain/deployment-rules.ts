import { badRequest, DomainError } from '#libs/domain';
import type { DeploymentSource, SourceConfig, SourceRevisionConfig } from './deployment.types.js';
import type { ResourceSpec } from '#libs/resource-spec';

/** A request's view of a SourceConfig: absent (undefined) and null both mean "not given". */
export type SourceConfigInput = {
  [K in keyof SourceConfig]?: K extends 'resource_spec'
    ? Partial<ResourceSpec> | null
    : K extends 'listener_config'
      ? { cluster_namespace?: string | null } | null
      : SourceConfig[K] | null;
};
export type SourceRevisionConfigInput = { [K in keyof SourceRevisionConfig]?: string | null };

type Field = keyof SourceConfig | keyof SourceRevisionConfig;

const BUILDABLE: readonly DeploymentSource[] = ['git_host', 'internal_source'];

/** Which sources each field may be given for. */
const APPLIES_TO: Readonly<Record<Field, readonly DeploymentSource[]>> = {
  integration_id: ['git_host'],
  repo_url: ['git_host'],
  // The interface keeps deployment_type to git_host; its own deploy command creates `dev` and
  // `prod` deployments from uploaded sources, so Berth accepts it for both buildable sources.
  deployment_type: BUILDABLE,
  build_on_push: ['git_host'],
  custom_url: ['external_container'],
  resource_spec: ['external_container'],
  listener_id: ['external_container'],
  listener_config: ['external_container'],
  install_command: BUILDABLE,
  build_command: BUILDABLE,
  repo_ref: ['git_host'],
  graph_config_path: BUILDABLE,
  image_uri: ['external_container'],
  source_tarball_path: ['internal_source'],
  repo_commit_sha: [],
};

const SECTION: Readonly<Record<Field, 'source_config' | 'source_revision_config'>> = {
  integration_id: 'source_config',
  repo_url: 'source_config',
  deployment_type: 'source_config',
  build_on_push: 'source_config',
  custom_url: 'source_config',
  resource_spec: 'source_config',
  listener_id: 'source_config',
  listener_config: 'source_config',
  install_command: 'source_config',
  build_command: 'source_config',
  repo_ref: 'source_revision_config',
  graph_config_path: 'source_revision_config',
  image_uri: 'source_revision_config',
  source_tarball_path: 'source_revision_config',
  repo_commit_sha: 'source_revision_config',
};

export const IMMUTABLE_SOURCE_CONFIG_FIELDS = [
  'integration_id',
  'repo_url',
  'deployment_type',
  'listener_id',
] as const;

export function fieldPath(field: Field): string {
  return `${SECTION[field]}.${field}`;
}

export const isGiven = <T>(value: T | null | undefined): value is T =>
  value !== null && value !== undefined;

export function isBuildable(source: DeploymentSource): boolean {
  return BUILDABLE.includes(source);
}

/** Every given field must belong to the source; the first one that does not is a 400. */
export function checkApplicability(
  source: DeploymentSource,
  given: SourceConfigInput & SourceRevisionConfigInput,
): void {
  for (const [field, value] of Object.entries(given)) {
    if (!isGiven(value) || !(field in APPLIES_TO)) continue;
    const allowed = APPLIES_TO[field as Field];
    if (allowed.includes(source)) continue;
    if (field === 'repo_commit_sha') {
      throw badRequest(`${fieldPath(field)} is read-only: it is recorded from the cloned commit`);
    }
    if (field === 'custom_url' && source === 'git_host') {
      throw badRequest(`${fieldPath(field)} is set by the platform for git_host deployments`);
    }
    throw badRequest(
      `${fieldPath(field as Field)} is only for ${allowed.join(' and ')} deployments, ` +
        `not for ${source}`,
    );
  }
}

export const MAX_DEPLOYMENT_NAME_LENGTH = 128;

/** What a name holds that could make it a path if it ever reached one; `\p{Cc}`: C0, DEL, C1. */
const NAME_PROBLEMS: readonly [RegExp, string][] = [
  [/\p{Cc}/u, 'a control character'],
  [/\//, "'/'"],
  [/\.\./, "'..'"],
];

/**
 * A deployment name is a label, never a path or an object name (those use the deployment's id),
 * but it is refused when it holds `/`, `..` or a control character, as a path would: 422.
 */
export function checkDeploymentName(name: string): void {
  if (name.length === 0 || name.length > MAX_DEPLOYMENT_NAME_LENGTH) {
    throw new DomainError(
      'validation',
      `name must be 1 to ${MAX_DEPLOYMENT_NAME_LENGTH} characters long`,
    );
  }
  for (const [pattern, what] of NAME_PROBLEMS) {
    if (pattern.test(name)) {
      throw new DomainError(
        'validation',
        `name must not contain ${what}: a name holds no '/', '..' or control character`,
      );
    }
  }
}

export function checkTagRule(buildOnPush: boolean | null, repoRef: string | null): void {
  if (buildOnPush === true && repoRef?.startsWith('refs/tags/')) {
    throw badRequest(
      `source_config.build_on_push must be false when source_revision_config.repo_ref is a tag ` +
        `(${repoRef}): tags do not move`,
    );
  }
}

export function checkSupportedSource(source: DeploymentSource, field: string): void {
  if (source === 'internal_container') {
    throw badRequest(
      `${field} internal_container is not supported by this platform: use internal_source ` +
        `(an uploaded source tarball) or external_container (a prebuilt image)`,
    );
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const RESERVED_ENV = new Set(['DATABASE_URL', 'EVENTSTORE_URL', 'PATH', 'HOME', 'NODE_OPTIONS']);
const RESERVED_PREFIXES = ['BERTH_'];

export function isReservedEnvName(name: string): boolean {
  return RESERVED_ENV.has(name) || RESERVED_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/** Secret names become environment variables of the runtime. */
export function checkSecretNames(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (!ENV_NAME.test(name)) {
      throw badRequest(
        `secrets: "${name}" is not a valid environment variable name (letters, digits, _)`,
      );
    }
    if (isReservedEnvName(name)) {
      throw badRequest(`secrets: "${name}" is reserved by the platform and cannot be set`);
    }
    if (seen.has(name)) throw badRequest(`secrets: "${name}" is given more than once`);
    seen.add(name);
  }
}
