import type pg from 'pg';
import { dropDatabase, ensureDatabase, withDatabase } from '#libs/database';
import { EventStore, handleCommand, type JsonObject } from '#libs/event-store';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import type { DeploymentCommand } from '../deployments/deployment.commands.js';
import { deploymentDecider } from '../deployments/deployment.decider.js';
import { DEPLOYMENT_STREAM_PREFIX, deploymentStream } from '../deployments/deployment.events.js';
import {
  findRevision,
  TERMINAL_REVISION_STATUSES,
  type DeploymentState,
  type RevisionState,
} from '../deployments/deployment.state.js';
import { isBuildable } from '../deployments/deployment-rules.js';
import { LOCAL_LISTENER_ID } from '../listeners/listener-directory.js';
import { RevisionLogWriter } from '../logs/revision-log-writer.js';
import type { SecretVault } from '../secrets/secret-vault.js';
import type { TenantDirectory } from '../tenancy/tenant-directory.js';
import type { TracingTokens } from '../tracing/tracing.service.js';
import type { UploadStore } from '../uploads/upload-store.js';
import { DeploymentProxy } from './deployment-proxy.js';
import { ephemeralPort, portIsFree } from './free-port.js';
import { SpareRuntimes, type RuntimeProcess } from './runtime-process.js';
import type { SourceBuilder } from './source-builder.js';

const LEADER_LOCK = 0x6265_7274; // 'bert'
const READY_TIMEOUT_MS = 90_000;
const KEPT_BUILDS = 5;
const RETRY_MS = 2_000;
const ACTOR: JsonObject = { actor: { kind: 'listener', listener_id: LOCAL_LISTENER_ID } };

export interface LocalListenerDeps {
  readonly config: ControlPlaneConfig;
  readonly store: EventStore;
  readonly pool: pg.Pool;
  /** The PostgreSQL server that deployments get their own databases on. */
  readonly serverUrl: string;
  readonly vault: SecretVault;
  readonly uploads: UploadStore;
  readonly builder: SourceBuilder;
  readonly tenants: TenantDirectory;
  readonly tracing: TracingTokens;
  readonly onError: (error: unknown) => void;
}

type Job = { revisionId: string; done: Promise<void> };

/**
 * The built-in listener. It follows the log and brings each deployment to what its events ask
 * for: a database, then each requested revision built, started beside the serving one, switched
 * to once its GET /ok answers. Everything it does is an event, so a restart resumes from the log.
 * One control plane at a time holds the leader lock and does this work.
 */
export class LocalListener {
  private readonly proxies = new Map<string, DeploymentProxy>();
  private readonly active = new Map<string, RuntimeProcess>();
  private readonly jobs = new Map<string, Job>();
  private readonly queue = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  private readonly abort = new AbortController();
  private readonly spares = new SpareRuntimes();
  private leader: pg.PoolClient | undefined;
  private following: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly deps: LocalListenerDeps) {}

  /** Waits for the leader lock in the background, then reconciles every deployment. */
  start(): void {
    this.following = this.followWhileOpen();
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.abort.abort();
    await Promise.allSettled([...this.jobs.values()].map((job) => job.done));
    await Promise.allSettled([...this.queue.values()]);
    await Promise.all([...this.active.values()].map((process) => process.stop()));
    await this.spares.stop();
    await Promise.all([...this.proxies.values()].map((proxy) => proxy.close()));
    await this.following;
  }

  /** Leads until stopped; a lost database connection ends one round, and the next begins. */
  private async followWhileOpen(): Promise<void> {
    const stopped = this.abort.signal;
    for (;;) {
      try {
        await this.lead();
      } catch (error) {
        if (!stopped.aborted) this.deps.onError(error);
      }
      this.leader?.release(true);
      this.leader = undefined;
      if (stopped.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  private async lead(): Promise<void> {
    const client = await this.deps.pool.connect();
    this.leader = client;
    for (;;) {
      const { rows } = await client.query<{ locked: boolean }>(
        'select pg_try_advisory_lock($1) as locked',
        [LEADER_LOCK],
      );
      if (rows[0]?.locked) break;
      if (this.closed) return;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    this.spares.start();
    const head = await this.deps.store.headPosition();
    const subscription = this.deps.store.subscribeToLog({ after: head });
    this.abort.signal.addEventListener('abort', () => void subscription.close(), { once: true });
    // The lock lives as long as its connection: when that goes, this round ends.
    client.once('error', (error) => {
      this.deps.onError(error);
      void subscription.close();
    });
    const { rows } = await this.deps.pool.query<{ deployment_id: string }>(
      'select deployment_id from deployments order by created_at',
    );
    for (const row of rows) this.schedule(row.deployment_id);
    for await (const event of subscription) {
      if (event.streamId.startsWith(DEPLOYMENT_STREAM_PREFIX)) {
        this.schedule(event.streamId.slice(DEPLOYMENT_STREAM_PREFIX.length));
      }
    }
  }

  /** Reconciles a deployment once more; calls for the same one never overlap. */
  private schedule(deploymentId: string): void {
    if (this.closed) return;
    if (this.queue.has(deploymentId)) {
      this.dirty.add(deploymentId);
      return;
    }
    const run = async (): Promise<void> => {
      do {
        this.dirty.delete(deploymentId);
        await this.reconcile(deploymentId).catch(this.deps.onError);
      } while (this.dirty.has(deploymentId) && !this.closed);
      this.queue.delete(deploymentId);
    };
    this.queue.set(deploymentId, run());
  }

  private async load(deploymentId: string): Promise<DeploymentState> {
    const events = await this.deps.store.readStream(deploymentStream(deploymentId));
    return events.reduce(
      (state, event) =>
        deploymentDecider.evolve(state, { type: event.type, data: event.data } as never),
      deploymentDecider.initialState,
    );
  }

  private async command(
    deploymentId: string,
    command: DeploymentCommand,
  ): Promise<DeploymentState> {
    const { state } = await handleCommand(
      this.deps.store,
      deploymentStream(deploymentId),
      deploymentDecider,
      command,
      ACTOR,
    );
    return state;
  }

  private async reconcile(deploymentId: string): Promise<void> {
    let state = await this.load(deploymentId);
    if (!state.exists || !isBuildable(state.source)) return;
    if (state.deleted) return;
    if (state.status === 'AWAITING_DELETE') {
      await this.tearDown(state, deploymentId);
      return;
    }
    if (state.status === 'AWAITING_DATABASE') state = await this.provision(deploymentId);
    await this.ensureProxy(state, deploymentId);
    if (this.jobs.has(deploymentId)) return;
    const next = nextRequested(state);
    for (const revision of pending(state)) {
      if (revision !== next) {
        await this.setStatus(
          deploymentId,
          revision.revision_id,
          'SKIPPED',
          `superseded by revision ${next?.revision_id ?? ''}`,
        );
      }
    }
    if (next) {
      const done = this.deploy(state, deploymentId, next)
        .catch(this.deps.onError)
        .finally(() => {
          this.jobs.delete(deploymentId);
          this.schedule(deploymentId);
        });
      this.jobs.set(deploymentId, { revisionId: next.revision_id, done });
      return;
    }
    await this.keepActiveRunning(state, deploymentId);
  }

  private async provision(deploymentId: string): Promise<DeploymentState> {
    const database = `berth_deployment_${deploymentId.replace(/-/g, '')}`;
    await ensureDatabase(this.deps.serverUrl, database);
    const port = await this.allocatePort(deploymentId);
    return this.command(deploymentId, {
      kind: 'provisioned',
      custom_url: `http://${this.deps.config.host}:${port}`,
      port,
      database,
      now: new Date().toISOString(),
    });
  }

  private async allocatePort(deploymentId: string): Promise<number> {
    const { rows } = await this.deps.pool.query<{ port: number }>(
      "select (state->>'port')::int as port from deployments where state->>'port' is not null and deployment_id <> $1",
      [deploymentId],
    );
    const taken = new Set(rows.map((row) => row.port));
    const { min, max } = this.deps.config.deploymentPorts;
    for (let port = min; port <= max; port += 1) {
      if (taken.has(port)) continue;
      if (await portIsFree(port, this.deps.config.host)) return port;
    }
    throw new Error(`No free port left in BERTH_DEPLOYMENT_PORTS (${min}-${max})`);
  }

  private async ensureProxy(state: DeploymentState, deploymentId: string): Promise<void> {
    if (this.proxies.has(deploymentId) || state.port === null) return;
    const proxy = new DeploymentProxy();
    await proxy.listen(state.port, this.deps.config.host);
    this.proxies.set(deploymentId, proxy);
  }

  private async tearDown(state: DeploymentState, deploymentId: string): Promise<void> {
    await this.jobs.get(deploymentId)?.done;
    await this.active.get(deploymentId)?.stop();
    this.active.delete(deploymentId);
    await this.proxies.get(deploymentId)?.close();
    this.proxies.delete(deploymentId);
    if (state.database) await dropDatabase(this.deps.serverUrl, state.database);
    await this.deps.builder.removeDeployment(deploymentId);
    await this.deps.uploads.removeDeployment(deploymentId);
    await this.deps.vault.forget(deploymentId);
    await this.command(deploymentId, { kind: 'torn_down', now: new Date().toISOString() });
  }

  private async setStatus(
    deploymentId: string,
    revisionId: string,
    status: RevisionState['status'],
    message: string | null = null,
  ): Promise<DeploymentState> {
    return this.command(deploymentId, {
      kind: 'revision_status',
      revision_id: revisionId,
      status,
      message,
      now: new Date().toISOString(),
    });
  }

  /** Builds (unless its build is kept) and deploys one revision, each step an event. */
  private async deploy(
    state: DeploymentState,
    deploymentId: string,
    revision: RevisionState,
  ): Promise<void> {
    const secrets = await this.deps.vault.open(deploymentId, revision.secrets);
    const log = new RevisionLogWriter(
      this.deps.store,
      revision.revision_id,
      secrets.map((secret) => secret.value),
      this.deps.onError,
    );
    try {
      const built = await this.buildStep(state, deploymentId, revision, log);
      if (!built) return;
      await this.deployStep(built, deploymentId, revision, secrets, log);
    } finally {
      await log.flush();
    }
  }

  private async buildStep(
    state: DeploymentState,
    deploymentId: string,
    revision: RevisionState,
    log: RevisionLogWriter,
  ): Promise<DeploymentState | undefined> {
    const { revision_id: revisionId, status } = revision;
    const kept = await this.deps.builder.isBuilt(deploymentId, revisionId);
    if (status === 'AWAITING_DEPLOY' || status === 'DEPLOYING') {
      const restarted = 'the control plane stopped during the deploy; deploying again';
      if (!kept) {
        const reason = 'its build is no longer kept; redeploy it to build it again';
        await this.setStatus(deploymentId, revisionId, 'DEPLOY_FAILED', reason);
        return undefined;
      }
      log.write('deploy', restarted);
      return this.setStatus(deploymentId, revisionId, 'AWAITING_DEPLOY', restarted);
    }
    if (status === 'QUEUED' && kept) {
      log.write('build', 'The build of this revision is kept: deploying it without rebuilding');
      return this.setStatus(deploymentId, revisionId, 'AWAITING_DEPLOY');
    }
    if (status === 'QUEUED') await this.setStatus(deploymentId, revisionId, 'AWAITING_BUILD');
    else {
      const restarted = `the control plane stopped while this revision was ${status}; building it again`;
      log.write('build', restarted);
      await this.setStatus(deploymentId, revisionId, 'AWAITING_BUILD', restarted);
    }
    await this.setStatus(deploymentId, revisionId, 'BUILDING');
    const config = revision.source_revision_config;
    const started = Date.now();
    const result = await this.deps.builder.build(
      deploymentId,
      {
        revisionId,
        tarball: config.source_tarball_path
          ? this.deps.uploads.pathOf(config.source_tarball_path)
          : undefined,
        repoUrl: state.source_config.repo_url,
        repoRef: config.repo_ref,
        graphConfigPath: config.graph_config_path ?? 'langgraph.json',
        installCommand: state.source_config.install_command,
        buildCommand: state.source_config.build_command,
        cacheScope: state.tenant_id ?? 'unknown',
      },
      (line) => {
        log.write('build', line);
      },
      this.abort.signal,
    );
    if (this.closed) return undefined;
    if (!result.ok) {
      log.write('build', `Build failed: ${result.reason}`);
      await this.setStatus(deploymentId, revisionId, 'BUILD_FAILED', result.reason);
      return undefined;
    }
    log.write('build', `Build finished in ${Date.now() - started} ms`);
    if (result.commitSha) {
      await this.command(deploymentId, {
        kind: 'source_resolved',
        revision_id: revisionId,
        repo_commit_sha: result.commitSha,
        now: new Date().toISOString(),
      });
    }
    const after = await this.load(deploymentId);
    if (nextRequested(after) !== undefined && nextRequested(after)?.revision_id !== revisionId) {
      await this.setStatus(
        deploymentId,
        revisionId,
        'SKIPPED',
        `superseded by revision ${nextRequested(after)?.revision_id ?? ''}`,
      );
      return undefined;
    }
    return this.setStatus(deploymentId, revisionId, 'AWAITING_DEPLOY');
  }

  private async deployStep(
    state: DeploymentState,
    deploymentId: string,
    revision: RevisionState,
    secrets: readonly { name: string; value: string }[],
    log: RevisionLogWriter,
  ): Promise<void> {
    const { revision_id: revisionId } = revision;
    await this.setStatus(deploymentId, revisionId, 'DEPLOYING');
    const process = await this.launch(state, deploymentId, revision, secrets, log);
    try {
      await process.ready(READY_TIMEOUT_MS);
    } catch (error) {
      await process.stop();
      const reason = error instanceof Error ? error.message : String(error);
      log.write('deploy', `Deploy failed: ${reason}`);
      await this.setStatus(deploymentId, revisionId, 'DEPLOY_FAILED', reason);
      return;
    }
    this.proxies.get(deploymentId)?.switchTo(process.port);
    const previous = this.active.get(deploymentId);
    this.serve(deploymentId, process, log);
    const now = new Date().toISOString();
    await this.command(deploymentId, { kind: 'activate', revision_id: revisionId, now });
    await this.setStatus(deploymentId, revisionId, 'DEPLOYED');
    log.write('deploy', `Serving at ${state.source_config.custom_url ?? ''}`);
    if (previous) {
      await previous.stop();
      log.write('deploy', `Stopped the previous revision ${previous.revisionId}`);
    }
    const keep = state.revisions.slice(-KEPT_BUILDS).map((r) => r.revision_id);
    await this.deps.builder.prune(deploymentId, [...new Set([...keep, revisionId])]);
  }

  private async launch(
    state: DeploymentState,
    deploymentId: string,
    revision: RevisionState,
    secrets: readonly { name: string; value: string }[],
    log: RevisionLogWriter,
  ): Promise<RuntimeProcess> {
    const port = await ephemeralPort('127.0.0.1');
    const { config, serverUrl } = this.deps;
    const projectId = state.tracing_project_id ?? '';
    const env: Record<string, string> = {};
    for (const secret of secrets) env[secret.name] = secret.value;
    Object.assign(env, {
      DATABASE_URL: withDatabase(serverUrl, state.database ?? ''),
      BERTH_DATA_DIR: this.deps.builder.revisionDir(deploymentId, revision.revision_id),
      BERTH_GRAPH_CONFIG: this.deps.builder.graphConfigFile(
        deploymentId,
        revision.revision_id,
        revision.source_revision_config.graph_config_path ?? 'langgraph.json',
      ),
      BERTH_RUNTIME_PORT: String(port),
      BERTH_HOST: '127.0.0.1',
      BERTH_API_KEY_SHA256: this.deps.tenants.keyDigestsOf(state.tenant_id ?? '').join(','),
      BERTH_TRACING_ENDPOINT: `http://127.0.0.1:${config.port}/v1/tracing-projects/${projectId}/runs`,
      BERTH_TRACING_TOKEN: this.deps.tracing.tokenOf(projectId),
    });
    log.write('deploy', `Starting the agent runtime of revision ${revision.revision_id}`);
    const runtime = this.spares.take();
    runtime.assign({
      revisionId: revision.revision_id,
      port,
      env,
      onLine: (line) => {
        log.write('deploy', line);
      },
    });
    return runtime;
  }

  /** Makes the process the deployment's active one; if it dies, it is started again. */
  private serve(deploymentId: string, process: RuntimeProcess, log: RevisionLogWriter): void {
    this.active.set(deploymentId, process);
    void process.exited.then(async () => {
      if (this.closed || this.active.get(deploymentId) !== process) return;
      this.active.delete(deploymentId);
      log.write('deploy', `The runtime ${process.describeExit()}; starting it again`);
      await log.flush();
      this.schedule(deploymentId);
    });
  }

  /** After a restart of the control plane, the active revision runs again (no new revision). */
  private async keepActiveRunning(state: DeploymentState, deploymentId: string): Promise<void> {
    const activeId = state.active_revision_id;
    const current = this.active.get(deploymentId);
    if (!activeId || current?.running) return;
    const revision = findRevision(state, activeId);
    if (!revision || !(await this.deps.builder.isBuilt(deploymentId, activeId))) return;
    const secrets = await this.deps.vault.open(deploymentId, revision.secrets);
    const log = new RevisionLogWriter(
      this.deps.store,
      activeId,
      secrets.map((s) => s.value),
      this.deps.onError,
    );
    log.write('deploy', 'Starting the active revision again');
    const process = await this.launch(state, deploymentId, revision, secrets, log);
    try {
      await process.ready(READY_TIMEOUT_MS);
      this.proxies.get(deploymentId)?.switchTo(process.port);
      this.serve(deploymentId, process, log);
    } catch (error) {
      await process.stop();
      log.write('deploy', `Could not start the active revision again: ${String(error)}`);
    } finally {
      await log.flush();
    }
  }
}

/** Revisions waiting for work, the latest request last. */
function pending(state: DeploymentState): RevisionState[] {
  return state.revisions
    .filter((revision) => !TERMINAL_REVISION_STATUSES.has(revision.status))
    .sort((a, b) => a.requested_at_position - b.requested_at_position);
}

function nextRequested(state: DeploymentState): RevisionState | undefined {
  return pending(state).at(-1);
}
