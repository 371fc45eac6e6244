import type { ResourceSpec } from '#libs/resource-spec';

export const DEPLOYMENT_SOURCES = [
  'git_host',
  'external_container',
  'internal_container',
  'internal_source',
] as const;
export type DeploymentSource = (typeof DEPLOYMENT_SOURCES)[number];

export const DEPLOYMENT_TYPES = ['dev_free', 'dev', 'prod'] as const;
export type DeploymentType = (typeof DEPLOYMENT_TYPES)[number];

export const DEPLOYMENT_STATUSES = [
  'AWAITING_DATABASE',
  'READY',
  'UNUSED',
  'AWAITING_DELETE',
  'UNKNOWN',
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export const REVISION_STATUSES = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'DEPLOYED',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

export type ListenerConfig = {
  cluster_namespace: string | null;
};

/** Stored and returned whole: every field present, null when unset. */
export type SourceConfig = {
  integration_id: string | null;
  repo_url: string | null;
  deployment_type: DeploymentType | null;
  build_on_push: boolean | null;
  custom_url: string | null;
  resource_spec: ResourceSpec | null;
  listener_id: string | null;
  listener_config: ListenerConfig | null;
  install_command: string | null;
  build_command: string | null;
};

export type SourceRevisionConfig = {
  repo_ref: string | null;
  graph_config_path: string | null;
  image_uri: string | null;
  source_tarball_path: string | null;
  repo_commit_sha: string | null;
};

/**
 * The commits a git revision's build found between the commit of the revision before it
 * (`from_sha`) and its own, newest first; null, with why, when its clone could not tell.
 */
export type CommitsSince = {
  from_sha: string;
  commits: { sha: string; message: string }[] | null;
  /** There were more than the build keeps: the oldest are left out. */
  truncated: boolean;
  reason: string | null;
};

export type SecretReference = {
  name: string;
  secret_name: string;
  secret_key: string;
};

/** Who caused an event, kept in its metadata for the audit history. */
export type Actor =
  | { kind: 'api_key'; tenant_id: string; key_id: string }
  | { kind: 'listener'; listener_id: string }
  | { kind: 'git_host'; integration_id: string };

export const EMPTY_SOURCE_CONFIG: SourceConfig = {
  integration_id: null,
  repo_url: null,
  deployment_type: null,
  build_on_push: null,
  custom_url: null,
  resource_spec: null,
  listener_id: null,
  listener_config: null,
  install_command: null,
  build_command: null,
};

export const EMPTY_SOURCE_REVISION_CONFIG: SourceRevisionConfig = {
  repo_ref: null,
  graph_config_path: null,
  image_uri: null,
  source_tarball_path: null,
  repo_commit_sha: null,
};
