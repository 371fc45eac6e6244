import type pg from 'pg';
import { dropDatabase, ensureDatabase } from '#libs/database';
import { deploymentDatabaseName } from '#libs/deployment-databases';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import type { ListenerCommand } from '../deployments/domain/deployment-listener.decide.js';
import type { DeploymentState } from '../deployments/domain/deployment.state.js';
import type { TenantSandbox } from '../isolation/tenant-sandbox.js';
import type { SecretVault } from '../secrets/secret-vault.js';
import type { UploadStore } from '../uploads/upload-store.js';
import type { DeploymentRuntimes } from './deployment-runtimes.js';
import type { DeploymentTree } from './deployment-tree.js';
import { portIsFree } from './free-port.js';

export type ProvisionerDeps = {
  readonly config: ControlPlaneConfig;
  readonly pool: pg.Pool;
  /** The PostgreSQL server that deployments get their own databases on. */
  readonly serverUrl: string;
  readonly vault: SecretVault;
  readonly uploads: UploadStore;
  readonly tree: DeploymentTree;
  readonly sandbox: TenantSandbox;
  readonly runtimes: DeploymentRuntimes;
};

/** What a deployment holds on this machine besides its revisions: a database, a port, a tree. */
export class DeploymentProvisioner {
  private provisioning: Promise<unknown> = Promise.resolve();
  private readonly assignedPorts = new Set<number>();

  constructor(private readonly deps: ProvisionerDeps) {}

  /** Its database made and a port chosen; the outcome to record. */
  async provision(deploymentId: string, now: string): Promise<ListenerCommand[]> {
    const database = deploymentDatabaseName(deploymentId);
    await ensureDatabase(this.deps.serverUrl, database);
    // One at a time: deployments provisioned together must not be given the same port.
    const allocated = this.provisioning.then(async () => {
      const port = await this.allocatePort(deploymentId);
      this.assignedPorts.add(port);
      return port;
    });
    this.provisioning = allocated.catch(() => undefined);
    const port = await allocated;
    const { host } = this.deps.config;
    return [{ kind: 'provisioned', custom_url: `http://${host}:${port}`, port, database, now }];
  }

  /** Everything of the deployment here goes: runtimes, port, database, tree, role, uploads, keys. */
  async tearDown(state: DeploymentState, now: string): Promise<ListenerCommand[]> {
    const deploymentId = state.deployment_id ?? '';
    const { runtimes, sandbox, tree, uploads, vault } = this.deps;
    await runtimes.remove(deploymentId);
    if (state.port !== null) this.assignedPorts.delete(state.port);
    // By its name, not the recorded one: a delete may come between its creation and the record.
    await dropDatabase(this.deps.serverUrl, deploymentDatabaseName(deploymentId));
    const identity = await sandbox.identityOf(deploymentId, state.tenant_id ?? 'unknown');
    await tree.remove(deploymentId, identity);
    await sandbox.forget(deploymentId);
    await uploads.removeDeployment(deploymentId);
    await vault.forget(deploymentId);
    return [{ kind: 'torn_down', now }];
  }

  private async allocatePort(deploymentId: string): Promise<number> {
    const { rows } = await this.deps.pool.query<{ port: number }>(
      `select (state->>'port')::int as port from deployments
        where state->>'port' is not null and deployment_id <> $1`,
      [deploymentId],
    );
    // The read model may not show the ports given a moment ago yet: this process remembers them.
    const taken = new Set([...rows.map((row) => row.port), ...this.assignedPorts]);
    const { min, max } = this.deps.config.deploymentPorts;
    for (let port = min; port <= max; port += 1) {
      if (taken.has(port)) continue;
      if (await portIsFree(port, this.deps.config.host)) return port;
    }
    throw new Error(`No free port left in BERTH_DEPLOYMENT_PORTS (${min}-${max})`);
  }
}
