import { expect } from '@jest/globals';
import { deciderSpecification, DomainError, foldEvents, type DomainErrorCode } from '#libs/domain';
import type { ListenerInfo } from '../../../listeners/listener-info.js';
import type { DeploymentCommand } from '../deployment.commands.js';
import { deploymentDecider } from '../deployment.decider.js';
import type { DeploymentEvent, RevisionCreatedData } from '../deployment.events.js';
import type { DeploymentState } from '../deployment.state.js';
import type { SealedSecret } from '../../../secrets/sealed-secret.js';
import type { RevisionStatus } from '../deployment.types.js';

export type CreateCommand = Extract<DeploymentCommand, { kind: 'create' }>;
export type PatchCommand = Extract<DeploymentCommand, { kind: 'patch' }>;

export const DEPLOYMENT_ID = 'dep-1';
export const TENANT_ID = 'tenant-a';
export const OTHER_TENANT_ID = 'tenant-b';
export const INTEGRATION_ID = 'integration-a';
export const LISTENER_ID = 'listener-cluster';
export const FIRST_REVISION_ID = 'rev-1';
export const CREATED_AT = '2025-01-01T00:00:00.000Z';
export const LATER = '2025-01-02T00:00:00.000Z';
export const UPLOAD_PATH = 'uploads/dep-1/source-1.tar.gz';

export const CLUSTER_LISTENER: ListenerInfo = { id: LISTENER_ID, compute_type: 'cluster' };
export const LOCAL_LISTENER: ListenerInfo = { id: 'listener-local', compute_type: 'local' };

export const sealed = (...names: string[]): SealedSecret[] =>
  names.map((name) => ({ name, sealed: `sealed:${name}` }));

const baseCreate: Omit<CreateCommand, 'source' | 'source_config' | 'source_revision_config'> = {
  kind: 'create',
  deployment_id: DEPLOYMENT_ID,
  tenant_id: TENANT_ID,
  name: 'my-agent',
  secrets: [],
  secret_references: null,
  listener: null,
  integration_id: INTEGRATION_ID,
  revision_id: FIRST_REVISION_ID,
  tracing_project_id: 'tracing-1',
  now: CREATED_AT,
};

export function createGitHost(overrides: Partial<CreateCommand> = {}): CreateCommand {
  return {
    ...baseCreate,
    source: 'git_host',
    source_config: { integration_id: INTEGRATION_ID, repo_url: 'https://git.example/a/b' },
    source_revision_config: { repo_ref: 'main', graph_config_path: 'graph.json' },
    ...overrides,
  };
}

export function createExternal(overrides: Partial<CreateCommand> = {}): CreateCommand {
  return {
    ...baseCreate,
    source: 'external_container',
    source_config: { listener_id: LISTENER_ID },
    source_revision_config: { image_uri: 'registry.example/agent:1' },
    listener: CLUSTER_LISTENER,
    ...overrides,
  };
}

export function createInternal(overrides: Partial<CreateCommand> = {}): CreateCommand {
  return {
    ...baseCreate,
    source: 'internal_source',
    source_config: {},
    source_revision_config: { graph_config_path: 'graph.json' },
    ...overrides,
  };
}

let revisionCounter = 1;

/** A PATCH that changes nothing; each call gets a fresh revision id. */
export function patch(overrides: Partial<PatchCommand> = {}): PatchCommand {
  revisionCounter += 1;
  return {
    kind: 'patch',
    deployment_id: DEPLOYMENT_ID,
    tenant_id: TENANT_ID,
    revision_source: null,
    source_config: null,
    source_revision_config: null,
    secrets: null,
    secret_references: null,
    revision_id: `rev-${revisionCounter}`,
    source_tarball_sha256: null,
    trigger: 'patch',
    now: LATER,
    ...overrides,
  };
}

/** Given a history, when a command: the deployment decider's given/when/then. */
export const deployment = deciderSpecification(deploymentDecider);

export function given(events: readonly DeploymentEvent[]): DeploymentState {
  return foldEvents(deploymentDecider, events);
}

export function decide(command: DeploymentCommand, state: DeploymentState): DeploymentEvent[] {
  return deploymentDecider.decide(command, state);
}

/** The events of a successful create. */
export function created(command: CreateCommand): DeploymentEvent[] {
  return deployment.given([]).when(command).events();
}

/** Decides a command and folds its events onto the history, returning the longer history. */
export function then(history: DeploymentEvent[], command: DeploymentCommand): DeploymentEvent[] {
  return [...history, ...deployment.given(history).when(command).events()];
}

export function uploadIssued(objectPath = UPLOAD_PATH): DeploymentEvent {
  return {
    type: 'UploadUrlIssued',
    data: { object_path: objectPath, expires_at: LATER, issued_at: CREATED_AT },
  };
}

export function revisionStatus(revisionId: string, status: RevisionStatus): DeploymentEvent {
  return {
    type: 'RevisionStatusChanged',
    data: { revision_id: revisionId, status, message: null, at: LATER },
  };
}

/** The only RevisionCreated among events; fails the test when there is not exactly one. */
export function revisionOf(events: readonly DeploymentEvent[]): RevisionCreatedData {
  const revisions = events.flatMap((event) =>
    event.type === 'RevisionCreated' ? [event.data] : [],
  );
  expect(revisions).toHaveLength(1);
  const [revision] = revisions;
  if (!revision) throw new Error('no RevisionCreated');
  return revision;
}

export function types(events: readonly DeploymentEvent[]): string[] {
  return events.map((event) => event.type);
}

/** Runs `act`, expecting a DomainError with the code and a message matching `message`. */
export function expectDomainError(
  act: () => unknown,
  code: DomainErrorCode,
  message: RegExp,
): void {
  let thrown: unknown;
  try {
    act();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(DomainError);
  const error = thrown as DomainError;
  expect({ code: error.code, message: error.message }).toEqual({
    code,
    message: expect.stringMatching(message),
  });
}

export const PROVISIONED_PORT = 4100;

/** A git_host deployment created and given its database and port, its first revision queued. */
export function provisioned(
  history: DeploymentEvent[] = created(createGitHost()),
): DeploymentEvent[] {
  return then(history, {
    kind: 'provisioned',
    custom_url: `http://127.0.0.1:${PROVISIONED_PORT}`,
    port: PROVISIONED_PORT,
    database: 'berth_deployment_1',
    now: LATER,
  });
}
