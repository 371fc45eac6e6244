import { timeBuild, timeDeploy } from './rollout-metrics.js';
import type { EventStore } from '#libs/event-store';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import {
  findRevision,
  type DeploymentState,
  type RevisionState,
} from '../deployments/domain/deployment.state.js';
import { RevisionLogWriter } from '../logs/revision-log-writer.js';
import type { PlainSecret, SecretVault } from '../secrets/secret-vault.js';
import type { TenantSandbox } from '../isolation/tenant-sandbox.js';
import {
  ConnectionBudgetExceededError,
  runtimeConnectionsOf,
} from '../isolation/connection-budget.js';
import type { TenantDirectory } from '../tenancy/tenant-directory.js';
import type { TracingTokens } from '../tracing/tracing.service.js';
import type { UploadStore } from '../uploads/upload-store.js';
import type { DeploymentRuntimes } from './deployment-runtimes.js';
import { nextRequested, type DeploymentWriter } from './deployment-writer.js';
import { ephemeralPort } from './free-port.js';
import { RUNTIME_COMMAND, type RuntimeProcess } from './runtime-process.js';
import { DiskQuotaExceededError } from './disk-quota.js';
import type { SourceBuilder } from './source-builder.js';
import { HostDetails } from '../logs/host-details.js';
import { PLATFORM_ROOT } from '../platform-paths.js';

const READY_TIMEOUT_MS = 90_000;
const KEPT_BUILDS = 5;

export interface RolloutDeps {
  readonly config: ControlPlaneConfig;
  readonly store: EventStore;
  /** The PostgreSQL server that deployments get their own databases on. */
  readonly serverUrl: string;
  readonly vault: SecretVault;
  readonly uploads: UploadStore;
  readonly builder: SourceBuilder;
  readonly tenants: TenantDirectory;
  readonly sandbox: TenantSandbox;
  readonly tracing: TracingTokens;
  readonly writer: DeploymentWriter;
  readonly runtimes: DeploymentRuntimes;
  /** Aborted when the control plane stops: builds in progress end. */
  readonly signal: AbortSignal;
  /** Called when a serving runtime dies, so that the deployment is looked at again. */
  readonly onRuntimeExit: (deploymentId: string) => void;
  readonly onError: (error: unknown) => void;
  readonly onInfo: (message: string) => void;
}

/**
 * Takes one revision from its request to serving, each step an event: built (unless its build
 * is kept), started on a spare runtime beside the serving one, switched to once its GET /ok
 * answers; the previous runtime is then stopped. A failure leaves the previous one serving.
 */
export class RevisionRollout {
  constructor(private readonly deps: RolloutDeps) {}

  async roll(state: DeploymentState, deploymentId: string, revision: RevisionState): Promise<void> {
    const secrets = await this.deps.vault.open(deploymentId, revision.secrets);
    const log = this.logOf(state, deploymentId, revision.revision_id, secrets);
    try {
      const built = await this.build(state, deploymentId, revision, log);
      if (built) await this.deploy(built, deploymentId, revision, secrets, log);
    } finally {
      await log.flush();
    }
  }

  /** After a restart of the control plane, the active revision runs again (no new revision). */
  async restartActive(state: DeploymentState, deploymentId: string): Promise<void> {
    const activeId = state.active_revision_id;
    if (!activeId || this.deps.runtimes.activeOf(deploymentId)?.running) return;
    const revision = findRevision(state, activeId);
    if (!revision || !(await this.deps.builder.tree.isBuilt(deploymentId, activeId))) return;
    const secrets = await this.deps.vault.open(deploymentId, revision.secrets);
    const log = this.logOf(state, deploymentId, activeId, secrets);
    log.write('deploy', 'Starting the active revision again');
    let process: RuntimeProcess | undefined;
    try {
      process = await this.launch(state, deploymentId, revision, secrets, log);
      await process.ready(READY_TIMEOUT_MS);
      this.serve(deploymentId, process, log);
    } catch (error) {
      await process?.stop();
      const reason = error instanceof Error ? error.message : String(error);
      log.write('deploy', `Could not start the active revision again: ${reason}`);
    } finally {
      await log.flush();
    }
  }

  private logOf(
    state: DeploymentState,
    deploymentId: string,
    revisionId: string,
    secrets: readonly PlainSecret[],
  ): RevisionLogWriter {
    const databasePassword = this.deps.sandbox.databasePasswordOf(deploymentId);
    return new RevisionLogWriter(this.deps.store, revisionId, {
      secretValues: [
        ...secrets.map((secret) => secret.value),
        ...(databasePassword ? [databasePassword] : []),
      ],
      hostDetails: new HostDetails(
        this.deps.builder.tree.sourceDir(deploymentId, revisionId),
        [this.deps.config.dataDir, PLATFORM_ROOT],
        state.source_config.custom_url ? [state.source_config.custom_url] : [],
      ),
      onError: this.deps.onError,
    });
  }

  private async build(
    state: DeploymentState,
    deploymentId: string,
    revision: RevisionState,
    log: RevisionLogWriter,
  ): Promise<DeploymentState | undefined> {
    const { writer, builder } = this.deps;
    const { revision_id: revisionId, status } = revision;
    const kept = await builder.tree.isBuilt(deploymentId, revisionId);
    if (status === 'AWAITING_DEPLOY' || status === 'DEPLOYING') {
      const restarted = 'the control plane stopped during the deploy; deploying again';
      if (!kept) {
        const reason = 'its build is no longer kept; redeploy it to build it again';
        await writer.setStatus(deploymentId, revisionId, 'DEPLOY_FAILED', reason);
        return undefined;
      }
      log.write('deploy', restarted);
      return writer.setStatus(deploymentId, revisionId, 'AWAITING_DEPLOY', restarted);
    }
    if (status === 'QUEUED' && kept) {
      log.write('build', 'The build of this revision is kept: deploying it without rebuilding');
      return writer.setStatus(deploymentId, revisionId, 'AWAITING_DEPLOY');
    }
    if (status === 'QUEUED') await writer.setStatus(deploymentId, revisionId, 'AWAITING_BUILD');
    else {
      const restarted = `the control plane stopped while this revision was ${status}; building it again`;
      log.write('build', restarted);
      await writer.setStatus(deploymentId, revisionId, 'AWAITING_BUILD', restarted);
    }
    await writer.setStatus(deploymentId, revisionId, 'BUILDING');
    const config = revision.source_revision_config;
    const started = Date.now();
    const buildEnded = timeBuild();
    const result = await builder.build(
      deploymentId,
      {
        revisionId,
        tarball: config.source_tarball_path
          ? this.deps.uploads.pathOf(config.source_tarball_path)
          : undefined,
        // Absent from revisions recorded before checksums were kept.
        tarballSha256: revision.source_tarball_sha256 ?? null,
        repoUrl: state.source_config.repo_url,
        repoRef: config.repo_ref,
        graphConfigPath: config.graph_config_path ?? 'langgraph.json',
        installCommand: state.source_config.install_command,
        buildCommand: state.source_config.build_command,
        cacheScope: state.tenant_id ?? 'unknown',
        identity: await this.deps.sandbox.identityOf(deploymentId, state.tenant_id ?? 'unknown'),
      },
      (line) => {
        log.write('build', line);
      },
      this.deps.signal,
    );
    if (this.deps.signal.aborted) return undefined;
    buildEnded(result.ok ? 'success' : 'failure');
    if (!result.ok) {
      log.write('build', `Build failed: ${result.reason}`);
      await writer.setStatus(deploymentId, revisionId, 'BUILD_FAILED', log.redact(result.reason));
      return undefined;
    }
    log.write('build', `Build finished in ${Date.now() - started} ms`);
    if (result.commitSha) {
      await writer.command(deploymentId, {
        kind: 'source_resolved',
        revision_id: revisionId,
        repo_commit_sha: result.commitSha,
        now: new Date().toISOString(),
      });
    }
    const newer = nextRequested(await writer.load(deploymentId));
    if (newer && newer.revision_id !== revisionId) {
      const superseded = `superseded by revision ${newer.revision_id}`;
      await writer.setStatus(deploymentId, revisionId, 'SKIPPED', superseded);
      return undefined;
    }
    return writer.setStatus(deploymentId, revisionId, 'AWAITING_DEPLOY');
  }

  private async deploy(
    state: DeploymentState,
    deploymentId: string,
    revision: RevisionState,
    secrets: readonly PlainSecret[],
    log: RevisionLogWriter,
  ): Promise<void> {
    const { writer } = this.deps;
    const { revision_id: revisionId } = revision;
    await writer.setStatus(deploymentId, revisionId, 'DEPLOYING');
    const deployEnded = timeDeploy();
    let process: RuntimeProcess;
    try {
      process = await this.launch(state, deploymentId, revision, secrets, log);
    } catch (error) {
      // The server has no connections left for this deployment: refused, the others untouched.
      const refused =
        error instanceof ConnectionBudgetExceededError || error instanceof DiskQuotaExceededError;
      if (!refused) throw error;
      deployEnded('failure');
      log.write('deploy', `Deploy refused: ${error.message}`);
      await log.flush();
      await writer.setStatus(deploymentId, revisionId, 'DEPLOY_FAILED', log.redact(error.message));
      return;
    }
    try {
      await process.ready(READY_TIMEOUT_MS);
      deployEnded('success');
    } catch (error) {
      deployEnded('failure');
      await process.stop();
      const reason = error instanceof Error ? error.message : String(error);
      log.write('deploy', `Deploy failed: ${reason}`);
      await log.flush();
      await writer.setStatus(deploymentId, revisionId, 'DEPLOY_FAILED', log.redact(reason));
      return;
    }
    const previous = this.serve(deploymentId, process, log);
    const now = new Date().toISOString();
    await writer.command(deploymentId, { kind: 'activate', revision_id: revisionId, now });
    // Whoever reads DEPLOYED finds the log that led there, the runtime's own lines included.
    log.write('deploy', `Serving at ${state.source_config.custom_url ?? ''}`);
    await log.flush();
    await writer.setStatus(deploymentId, revisionId, 'DEPLOYED');
    if (previous) {
      await previous.stop();
      log.write('deploy', `Stopped the previous revision ${previous.revisionId}`);
    }
    const keep = state.revisions.slice(-KEPT_BUILDS).map((r) => r.revision_id);
    const identity = await this.deps.sandbox.identityOf(deploymentId, state.tenant_id ?? 'unknown');
    await this.deps.builder.tree.prune(deploymentId, [...new Set([...keep, revisionId])], identity);
  }

  private serve(
    deploymentId: string,
    process: RuntimeProcess,
    log: RevisionLogWriter,
  ): RuntimeProcess | undefined {
    const { quota, tree } = this.deps.builder;
    const stopWatching = quota.watch(tree.deploymentDir(deploymentId), (error) => {
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

  /** A spare runtime, given the revision's application, database, port, keys and secrets. */
  private async launch(
    state: DeploymentState,
    deploymentId: string,
    revision: RevisionState,
    secrets: readonly PlainSecret[],
    log: RevisionLogWriter,
  ): Promise<RuntimeProcess> {
    const { config, builder, tenants, tracing, sandbox } = this.deps;
    const port = await ephemeralPort('127.0.0.1');
    const projectId = state.tracing_project_id ?? '';
    const env: Record<string, string> = {};
    for (const secret of secrets) env[secret.name] = secret.value;
    Object.assign(env, {
      DATABASE_URL: await sandbox.databaseUrlOf(deploymentId, state.database ?? ''),
      HOME: builder.tree.homeDir(deploymentId),
      BERTH_DATA_DIR: builder.tree.revisionDir(deploymentId, revision.revision_id),
      BERTH_GRAPH_CONFIG: builder.tree.graphConfigFile(
        deploymentId,
        revision.revision_id,
        revision.source_revision_config.graph_config_path ?? 'langgraph.json',
      ),
      BERTH_RUNTIME_PORT: String(port),
      BERTH_HOST: '127.0.0.1',
      BERTH_API_KEY_SHA256: tenants.keyDigestsOf(state.tenant_id ?? '').join(','),
      BERTH_TRACING_ENDPOINT: `http://127.0.0.1:${config.port}/v1/tracing-projects/${projectId}/runs`,
      BERTH_TRACING_TOKEN: tracing.tokenOf(projectId),
      // Its pools fit in half its role's limit: a rollout runs two runtimes side by side.
      BERTH_DATABASE_CONNECTIONS: String(
        runtimeConnectionsOf(config.limits.deploymentDbConnections),
      ),
    });
    log.write('deploy', `Starting the agent runtime of revision ${revision.revision_id}`);
    this.deps.onInfo(
      `Deployment ${deploymentId} revision ${revision.revision_id}: runtime on 127.0.0.1:${port}`,
    );
    const tenant = state.tenant_id ?? 'unknown';
    const identity = await sandbox.identityOf(deploymentId, tenant);
    await builder.tree.prepare(deploymentId, identity, tenant);
    await builder.quota.check(builder.tree.deploymentDir(deploymentId));
    const runtime = this.deps.runtimes.start(
      sandbox.jailer && identity
        ? await sandbox.jailer.jail(
            builder.tree.jailRequest(
              'runtime',
              { deploymentId, revisionId: revision.revision_id, tenant, identity },
              builder.tree.sourceDir(deploymentId, revision.revision_id),
            ),
            RUNTIME_COMMAND,
          )
        : undefined,
    );
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
}
