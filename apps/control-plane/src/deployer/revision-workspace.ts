import type { ControlPlaneConfig } from '../control-plane.config.js';
import type { DeploymentState, RevisionState } from '../deployments/domain/deployment.state.js';
import type { TenantSandbox } from '../isolation/tenant-sandbox.js';
import type { OsIdentity } from '../isolation/os-identities.js';
import { HostDetails } from '../logs/host-details.js';
import { RevisionLogWriter } from '../logs/revision-log-writer.js';
import { PLATFORM_ROOT } from '../platform-paths.js';
import type { PlainSecret, SecretVault } from '../secrets/secret-vault.js';
import type { EventStore } from '#libs/event-store';
import type { DeploymentTree } from './deployment-tree.js';

/**
 * Everything a step of one revision's rollout works with, resolved once: whose it is, who its
 * commands run as, its secrets, its log (which masks them), and its directories.
 */
export type RevisionWorkspace = {
  readonly deploymentId: string;
  readonly tenant: string;
  readonly deployment: DeploymentState;
  readonly revision: RevisionState;
  /** The OS user and group its commands run as; undefined where privileges cannot be dropped. */
  readonly identity: OsIdentity | undefined;
  readonly secrets: readonly PlainSecret[];
  readonly log: RevisionLogWriter;
  readonly dirs: {
    readonly deployment: string;
    readonly home: string;
    readonly revision: string;
    readonly source: string;
  };
  readonly graphConfigPath: string;
};

export type WorkspaceDeps = {
  readonly config: ControlPlaneConfig;
  readonly store: EventStore;
  readonly vault: SecretVault;
  readonly sandbox: TenantSandbox;
  readonly tree: DeploymentTree;
  readonly onError: (error: unknown) => void;
};

/** Opens the workspace of a revision: its secrets unsealed, its log ready to write. */
export async function openWorkspace(
  deps: WorkspaceDeps,
  deployment: DeploymentState,
  revision: RevisionState,
): Promise<RevisionWorkspace> {
  const { tree, sandbox, vault, config } = deps;
  const deploymentId = deployment.deployment_id ?? '';
  const tenant = deployment.tenant_id ?? 'unknown';
  const revisionId = revision.revision_id;
  const secrets = await vault.open(deploymentId, revision.secrets);
  const source = tree.sourceDir(deploymentId, revisionId);
  const databasePassword = sandbox.databasePasswordOf(deploymentId);
  const customUrl = deployment.source_config.custom_url;
  const log = new RevisionLogWriter(deps.store, revisionId, {
    secretValues: [
      ...secrets.map((secret) => secret.value),
      ...(databasePassword ? [databasePassword] : []),
    ],
    hostDetails: new HostDetails(
      source,
      [config.dataDir, PLATFORM_ROOT],
      customUrl ? [customUrl] : [],
    ),
    onError: deps.onError,
  });
  return {
    deploymentId,
    tenant,
    deployment,
    revision,
    identity: await sandbox.identityOf(deploymentId, tenant),
    secrets,
    log,
    dirs: {
      deployment: tree.deploymentDir(deploymentId),
      home: tree.homeDir(deploymentId),
      revision: tree.revisionDir(deploymentId, revisionId),
      source,
    },
    graphConfigPath: revision.source_revision_config.graph_config_path ?? 'langgraph.json',
  };
}
