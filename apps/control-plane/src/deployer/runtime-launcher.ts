import { join } from 'node:path';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import { runtimeConnectionsOf } from '#libs/deployment-databases';
import type { PlatformSockets } from '../isolation/jail-sockets.js';
import type { TenantSandbox } from '../isolation/tenant-sandbox.js';
import type { TenantDirectory } from '../tenancy/tenant-directory.js';
import type { TracingTokens } from '../tracing/tracing.service.js';
import type { DeploymentRuntimes } from './deployment-runtimes.js';
import type { DeploymentTree } from './deployment-tree.js';
import type { DiskQuota } from './disk-quota.js';
import { ephemeralPort } from './free-port.js';
import type { RevisionWorkspace } from './revision-workspace.js';
import { runtimeCommand, type RuntimeProcess } from './runtime-process.js';

/** A connection through a deployment's database gate that has not logged in by then is closed. */
const DATABASE_LOGIN_TIMEOUT_MS = 5_000;

/** The same login and database, through the gate's socket in `dir` (PostgreSQL's `host=`). */
export function throughSocket(url: string, dir: string): string {
  const parsed = new URL(url);
  parsed.hostname = 'localhost';
  parsed.port = '5432';
  parsed.searchParams.set('host', dir);
  return parsed.toString();
}

export type LauncherDeps = {
  readonly config: ControlPlaneConfig;
  readonly tree: DeploymentTree;
  readonly quota: DiskQuota;
  readonly tenants: TenantDirectory;
  readonly sandbox: TenantSandbox;
  readonly tracing: TracingTokens;
  readonly runtimes: DeploymentRuntimes;
  /** Called when a serving runtime dies, so that the deployment is looked at again. */
  readonly onRuntimeExit: (deploymentId: string) => void;
  readonly onInfo: (message: string) => void;
};

/** Starts a revision's runtime beside the serving one, and switches the deployment to it. */
export class RuntimeLauncher {
  constructor(private readonly deps: LauncherDeps) {}

  /** A spare runtime, given the revision's application, database, port, keys and secrets. */
  /**
   * Starts the revision's runtime. A rollout asks for every graph to load (a revision some of whose
   * graphs fail is not deployed); the live revision started again after a restart serves what
   * loads, as it did before.
   */
  async launch(
    workspace: RevisionWorkspace,
    purpose: 'rollout' | 'restart',
  ): Promise<RuntimeProcess> {
    const { tree, quota, sandbox, runtimes } = this.deps;
    const { deploymentId, revision, identity, tenant, log } = workspace;
    const port = await ephemeralPort('127.0.0.1');
    const env = await this.environmentOf(workspace, port, purpose);
    log.write('deploy', `Starting the agent runtime of revision ${revision.revision_id}`);
    await tree.prepare(deploymentId, identity, tenant);
    await quota.check(workspace.dirs.deployment);
    const target = { deploymentId, revisionId: revision.revision_id, tenant };
    const { jailer } = sandbox;
    const platform = identity ? await this.platformSocketsOf(deploymentId) : undefined;
    const jailed =
      jailer && identity
        ? await jailer.jail(
            tree.jailRequest(
              'runtime',
              { ...target, identity },
              workspace.dirs.source,
              platform ? [platform.dir] : [],
            ),
            runtimeCommand(jailer.runtimeHeapMegabytes),
          )
        : undefined;
    if (platform && jailed?.inbound) {
      Object.assign(env, {
        DATABASE_URL: throughSocket(env.DATABASE_URL ?? '', platform.databaseDir),
        BERTH_RUNTIME_SOCKET: jailed.inbound.listenSocket,
        BERTH_TRACING_SOCKET: platform.controlPlaneSocket,
      });
    }
    const served = jailed?.inbound ? jailed.inbound.listenSocket : `127.0.0.1:${port}`;
    this.deps.onInfo(
      `Deployment ${deploymentId} revision ${revision.revision_id}: runtime on ${served}`,
    );
    const runtime = runtimes.start(jailed);
    runtime.assign({
      revisionId: revision.revision_id,
      port,
      env,
      identity,
      onLine: (line) => {
        log.write('deploy', line);
      },
    });
    return runtime;
  }

  /**
   * Sends the deployment's connections to the process; returns the one it replaces. The runtime is
   * stopped when the deployment outgrows its disk quota, and looked at again when it dies.
   */
  serve(workspace: RevisionWorkspace, process: RuntimeProcess): RuntimeProcess | undefined {
    const { deploymentId, log } = workspace;
    const stopWatching = this.deps.quota.watch(workspace.dirs.deployment, (error) => {
      log.write('deploy', `Stopping the runtime: ${error.message}`);
      void process.stop();
    });
    void process.exited.then(stopWatching);
    return this.deps.runtimes.serve(deploymentId, process, async () => {
      const outOfMemory = await process.outOfMemory();
      if (outOfMemory) log.write('deploy', outOfMemory);
      log.write('deploy', `The runtime ${process.describeExit()}; starting it again`);
      await log.flush();
      this.deps.onRuntimeExit(deploymentId);
    });
  }

  /** The deployment's database gate and relay, where jails have networks of their own. */
  private platformSocketsOf(deploymentId: string): Promise<PlatformSockets | undefined> {
    const { sandbox, config } = this.deps;
    return (
      sandbox.jailer?.platformSocketsOf(deploymentId, {
        server: sandbox.databaseServer,
        maxConnections: config.limits.deploymentDbConnections,
        loginTimeoutMs: DATABASE_LOGIN_TIMEOUT_MS,
        controlPlanePort: config.port,
      }) ?? Promise.resolve(undefined)
    );
  }

  private async environmentOf(
    workspace: RevisionWorkspace,
    port: number,
    purpose: 'rollout' | 'restart',
  ): Promise<Record<string, string>> {
    const { config, tree, tenants, tracing, sandbox } = this.deps;
    const { deployment, revision, deploymentId } = workspace;
    const projectId = deployment.tracing_project_id ?? '';
    const env: Record<string, string> = {};
    for (const secret of workspace.secrets) env[secret.name] = secret.value;
    return Object.assign(env, {
      DATABASE_URL: await sandbox.databaseUrlOf(deploymentId, deployment.database ?? ''),
      HOME: workspace.dirs.home,
      BERTH_DATA_DIR: workspace.dirs.revision,
      // The deployment's master key outlives its revisions (each has a data directory of its
      // own): every revision reads what the ones before it encrypted. A BERTH_MASTER_KEY secret
      // of the deployment comes first.
      BERTH_MASTER_KEY_FILE: join(workspace.dirs.home, '.berth-master-key'),
      BERTH_GRAPH_CONFIG: tree.graphConfigFile(
        deploymentId,
        revision.revision_id,
        workspace.graphConfigPath,
      ),
      BERTH_RUNTIME_PORT: String(port),
      BERTH_HOST: '127.0.0.1',
      // A revision some of whose graphs fail to load is not deployed: the runtime says which.
      BERTH_REQUIRE_EVERY_GRAPH: String(purpose === 'rollout'),
      BERTH_API_KEY_SHA256: tenants.keyDigestsOf(workspace.deployment.tenant_id ?? '').join(','),
      BERTH_TRACING_ENDPOINT: `http://127.0.0.1:${config.port}/v1/tracing-projects/${projectId}/runs`,
      BERTH_TRACING_TOKEN: tracing.tokenOf(projectId),
      // Its pools fit in half its role's limit: a rollout runs two runtimes side by side.
      BERTH_DATABASE_CONNECTIONS: String(
        runtimeConnectionsOf(config.limits.deploymentDbConnections),
      ),
    });
  }
}
