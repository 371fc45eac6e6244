import type pg from 'pg';
import { dropDatabase, ensureDatabase } from '#libs/database';
import type { EventStore } from '#libs/event-store';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import { DEPLOYMENT_STREAM_PREFIX } from '../deployments/domain/deployment.events.js';
import type { DeploymentState } from '../deployments/domain/deployment.state.js';
import { isBuildable } from '../deployments/domain/deployment-rules.js';
import type { SecretVault } from '../secrets/secret-vault.js';
import type { TenantSandbox } from '../isolation/tenant-sandbox.js';
import type { TenantDirectory } from '../tenancy/tenant-directory.js';
import type { TracingTokens } from '../tracing/tracing.service.js';
import type { UploadStore } from '../uploads/upload-store.js';
import { DeploymentRuntimes } from './deployment-runtimes.js';
import { DeploymentWriter, nextRequested, pendingRevisions } from './deployment-writer.js';
import { portIsFree } from './free-port.js';
import { RevisionRollout } from './revision-rollout.js';
import type { SourceBuilder } from './source-builder.js';

const LEADER_LOCK = 0x6265_7274; // 'bert'
const RETRY_MS = 2_000;

/** Each deployment's own database on the control plane's server. */
export const deploymentDatabaseName = (deploymentId: string): string =>
  `berth_deployment_${deploymentId.replace(/-/g, '')}`;

export interface DeploymentReconcilerDeps {
  readonly config: ControlPlaneConfig;
  readonly store: EventStore;
  readonly pool: pg.Pool;
  /** The PostgreSQL server that deployments get their own databases on. */
  readonly serverUrl: string;
  readonly vault: SecretVault;
  readonly uploads: UploadStore;
  readonly builder: SourceBuilder;
  readonly tenants: TenantDirectory;
  /** The OS users and database roles that deployments run as. */
  readonly sandbox: TenantSandbox;
  readonly tracing: TracingTokens;
  readonly onError: (error: unknown) => void;
  /** The operator's log: where each revision's runtime listens, and the like. */
  readonly onInfo: (message: string) => void;
}

/**
 * The reconcile loop, doing the built-in local listener's work. It follows the log and brings each deployment to what its events ask
 * for: a database and a port, then each requested revision rolled out (revision-rollout.ts), and
 * at the end its tear-down. Everything it does is an event, so a restart resumes from the log.
 * One control plane at a time holds the leader lock and does this work.
 */
export class DeploymentReconciler {
  private readonly runtimes = new DeploymentRuntimes();
  private readonly writer: DeploymentWriter;
  private readonly rollout: RevisionRollout;
  /** The rollout in progress per deployment. */
  private readonly rollouts = new Map<string, Promise<void>>();
  private readonly queue = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  private readonly abort = new AbortController();
  private provisioning: Promise<unknown> = Promise.resolve();
  private readonly assignedPorts = new Set<number>();
  private leader: pg.PoolClient | undefined;
  private following: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly deps: DeploymentReconcilerDeps) {
    this.writer = new DeploymentWriter(deps.store);
    this.rollout = new RevisionRollout({
      ...deps,
      writer: this.writer,
      runtimes: this.runtimes,
      signal: this.abort.signal,
      onRuntimeExit: (deploymentId) => {
        this.schedule(deploymentId);
      },
    });
  }

  /** Waits for the leader lock in the background, then reconciles every deployment. */
  onApplicationBootstrap(): void {
    this.following = this.followWhileOpen();
  }

  /** Before the HTTP server closes: rollouts end, and the runtimes this process runs stop. */
  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    this.abort.abort();
    await Promise.allSettled([...this.rollouts.values()]);
    await Promise.allSettled([...this.queue.values()]);
    await this.runtimes.stopAll();
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
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
    const killed = await this.deps.builder.killLeftovers();
    if (killed > 0) {
      this.deps.onInfo(
        `Ended ${killed} build command(s) that a stopped control plane left running`,
      );
    }
    if (!this.deps.sandbox.jailer) this.runtimes.startSpare();
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
      if (!event.streamId.startsWith(DEPLOYMENT_STREAM_PREFIX)) continue;
      const deploymentId = event.streamId.slice(DEPLOYMENT_STREAM_PREFIX.length);
      if (!this.writer.wrote(deploymentId, event.streamPosition)) this.schedule(deploymentId);
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

  private async reconcile(deploymentId: string): Promise<void> {
    let state = await this.writer.load(deploymentId);
    if (!state.exists || state.deleted || !isBuildable(state.source)) return;
    if (state.status === 'AWAITING_DELETE') {
      await this.tearDown(deploymentId, state.port, state.tenant_id ?? 'unknown');
      return;
    }
    if (state.status === 'AWAITING_DATABASE') state = await this.provision(deploymentId);
    if (state.port !== null) {
      await this.runtimes.ensureProxy(deploymentId, state.port, this.deps.config.host);
    }
    if (this.rollouts.has(deploymentId)) return;
    const next = nextRequested(state);
    for (const revision of pendingRevisions(state)) {
      if (revision === next) continue;
      const superseded = `superseded by revision ${next?.revision_id ?? ''}`;
      await this.writer.setStatus(deploymentId, revision.revision_id, 'SKIPPED', superseded);
    }
    // The live revision serves again (after a restart, or a crash) before anything is rebuilt.
    await this.rollout.restartActive(state, deploymentId);
    if (!next) return;
    const rolling = this.rollout
      .roll(state, deploymentId, next)
      .catch(this.deps.onError)
      .finally(() => {
        this.rollouts.delete(deploymentId);
        this.schedule(deploymentId);
      });
    this.rollouts.set(deploymentId, rolling);
  }

  private async provision(deploymentId: string): Promise<DeploymentState> {
    const database = deploymentDatabaseName(deploymentId);
    await ensureDatabase(this.deps.serverUrl, database);
    // One at a time: deployments provisioned together must not be given the same port.
    const provisioned = this.provisioning.then(async () => {
      const port = await this.allocatePort(deploymentId);
      this.assignedPorts.add(port);
      return this.writer.command(deploymentId, {
        kind: 'provisioned',
        custom_url: `http://${this.deps.config.host}:${port}`,
        port,
        database,
        now: new Date().toISOString(),
      });
    });
    this.provisioning = provisioned.catch(() => undefined);
    return provisioned;
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

  private async tearDown(deploymentId: string, port: number | null, tenant: string): Promise<void> {
    await this.rollouts.get(deploymentId);
    await this.runtimes.remove(deploymentId);
    if (port !== null) this.assignedPorts.delete(port);
    // By its name, not the recorded one: a delete may come between its creation and the record.
    await dropDatabase(this.deps.serverUrl, deploymentDatabaseName(deploymentId));
    const identity = await this.deps.sandbox.identityOf(deploymentId, tenant);
    await this.deps.builder.tree.remove(deploymentId, identity);
    await this.deps.sandbox.forget(deploymentId);
    await this.deps.uploads.removeDeployment(deploymentId);
    await this.deps.vault.forget(deploymentId);
    await this.writer.command(deploymentId, { kind: 'torn_down', now: new Date().toISOString() });
  }
}
