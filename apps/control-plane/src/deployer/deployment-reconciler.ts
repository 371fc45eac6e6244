import type pg from 'pg';
import type { EventStore } from '#libs/event-store';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import { DEPLOYMENT_STREAM_PREFIX } from '../deployments/domain/deployment.events.js';
import type { DeploymentState, RevisionState } from '../deployments/domain/deployment.state.js';
import {
  nextDeploymentStep,
  type DeploymentStep,
} from '../deployments/domain/deployment-workflow.js';
import type { ListenerCommand } from '../deployments/domain/deployment-listener.decide.js';
import type { SecretVault } from '../secrets/secret-vault.js';
import type { TenantSandbox } from '../isolation/tenant-sandbox.js';
import type { TenantDirectory } from '../tenancy/tenant-directory.js';
import type { TracingTokens } from '../tracing/tracing.service.js';
import type { UploadStore } from '../uploads/upload-store.js';
import { DeploymentProvisioner } from './deployment-provisioner.js';
import { DeploymentRuntimes } from './deployment-runtimes.js';
import { DeploymentWriter } from './deployment-writer.js';
import { RevisionRollout } from './revision-rollout.js';
import { RuntimeLauncher } from './runtime-launcher.js';
import type { SourceBuilder } from './source-builder.js';
import { StepRetries, tearDownFailedMessage } from './step-retries.js';
import { HostDetails } from '../logs/host-details.js';
import { RevisionLogWriter } from '../logs/revision-log-writer.js';
import { PLATFORM_ROOT } from '../platform-paths.js';
import type { UpgradeCourier } from './websocket-courier.js';

const LEADER_LOCK = 0x6265_7274; // 'bert'
const RETRY_MS = 2_000;

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
  /** Where deployments' ports hand their WebSockets over. */
  readonly courier: UpgradeCourier;
  readonly onError: (error: unknown) => void;
  /** The operator's log: where each revision's runtime listens, and the like. */
  readonly onInfo: (message: string) => void;
}

/**
 * The reconcile loop, doing the built-in local listener's work. It follows the log and, for each
 * deployment, asks deployment-workflow.ts for the next step, takes it, and records its outcome,
 * until the answer is to rest: a database and a port, then each requested revision rolled out
 * (revision-rollout.ts), and at the end its tear-down. Everything it does is an event, so a
 * restart resumes from the log. One control plane at a time holds the leader lock.
 */
export class DeploymentReconciler {
  private readonly runtimes: DeploymentRuntimes;
  private readonly writer: DeploymentWriter;
  private readonly provisioner: DeploymentProvisioner;
  private readonly rollout: RevisionRollout;
  /** The rollout in progress per deployment. */
  private readonly rollouts = new Map<string, Promise<void>>();
  private readonly queue = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  private readonly abort = new AbortController();
  private readonly tearDownRetries = new StepRetries('tear_down', (deploymentId) => {
    this.schedule(deploymentId);
  });
  private readonly restartRetries = new StepRetries('restart_active', (deploymentId) => {
    this.schedule(deploymentId);
  });
  private leader: pg.PoolClient | undefined;
  private following: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly deps: DeploymentReconcilerDeps) {
    this.runtimes = new DeploymentRuntimes(
      deps.config.limits.deploymentMaxWebSockets,
      deps.courier,
    );
    const { tree, quota } = deps.builder;
    const runtimes = this.runtimes;
    this.writer = new DeploymentWriter(deps.store);
    this.provisioner = new DeploymentProvisioner({ ...deps, tree, runtimes });
    const launcher = new RuntimeLauncher({
      ...deps,
      tree,
      quota,
      runtimes,
      onRuntimeExit: (deploymentId) => {
        this.schedule(deploymentId);
      },
    });
    this.rollout = new RevisionRollout({
      ...deps,
      tree,
      launcher,
      writer: this.writer,
      signal: this.abort.signal,
    });
  }

  /** Waits for the leader lock in the background, then reconciles every deployment. */
  onApplicationBootstrap(): void {
    this.following = this.followWhileOpen();
  }

  /** Before the HTTP server closes: rollouts end, and the runtimes this process runs stop. */
  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    this.tearDownRetries.stopAll();
    this.restartRetries.stopAll();
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

  /** Takes the deployment's next steps until the workflow says to rest. */
  private async reconcile(deploymentId: string): Promise<void> {
    const taken = new Set<DeploymentStep['kind']>();
    for (;;) {
      const state = await this.writer.load(deploymentId);
      const step = nextDeploymentStep(state, await this.factsOf(state, taken));
      if (step.kind === 'rest') return;
      taken.add(step.kind);
      await this.writer.record(deploymentId, await this.take(step, state));
    }
  }

  private async factsOf(state: DeploymentState, taken: ReadonlySet<DeploymentStep['kind']>) {
    const deploymentId = state.deployment_id ?? '';
    const activeId = state.active_revision_id;
    const activeServing = !!this.runtimes.activeOf(deploymentId)?.running;
    // Whether its build is kept matters only for an active revision that is not serving.
    const activeBuilt =
      !!activeId &&
      !activeServing &&
      (await this.deps.builder.tree.isBuilt(deploymentId, activeId));
    return {
      rolling: this.rollouts.has(deploymentId),
      portOpen: this.runtimes.hasProxy(deploymentId),
      activeServing,
      activeBuilt,
      taken,
      now: new Date().toISOString(),
    };
  }

  /**
   * Its builds in progress end at once; then everything of it here goes. A failed tear-down is
   * said in the operator's log and the deployment's latest revision's, and on that revision's
   * status message (the deployment's status stays AWAITING_DELETE), and tried again later.
   */
  private async tearDown(state: DeploymentState, now: string): Promise<readonly ListenerCommand[]> {
    const deploymentId = state.deployment_id ?? '';
    this.deps.builder.cancelBuilds(deploymentId, 'the deployment is being deleted');
    await this.rollouts.get(deploymentId);
    try {
      const commands = await this.provisioner.tearDown(state, now);
      this.tearDownRetries.succeeded(deploymentId);
      return commands;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const line = this.tearDownRetries.failed(deploymentId, reason);
      this.deps.onError(new Error(`Deployment ${deploymentId}: ${line}`));
      await this.logOnLatestRevision(state, line);
      const message = tearDownFailedMessage(this.hostDetailsOf(state).scrub(reason));
      return [{ kind: 'tear_down_failed', message, now }];
    }
  }

  /** The live revision starts again; one that cannot start yet is tried again later. */
  private async restartActive(
    state: DeploymentState,
    revision: RevisionState,
  ): Promise<readonly ListenerCommand[]> {
    const deploymentId = state.deployment_id ?? '';
    const failure = await this.rollout.restartActive(state, revision);
    if (failure === undefined) {
      this.restartRetries.succeeded(deploymentId);
      return [];
    }
    const line = this.restartRetries.failed(deploymentId, failure);
    this.deps.onError(new Error(`Deployment ${deploymentId}: ${line}`));
    await this.logOnLatestRevision(state, line);
    return [];
  }

  /** A line in the deployment's latest revision's log, host paths hidden as in any other. */
  private async logOnLatestRevision(state: DeploymentState, line: string): Promise<void> {
    const revisionId = state.revisions.at(-1)?.revision_id;
    if (!revisionId) return;
    const { store, onError } = this.deps;
    const log = new RevisionLogWriter(store, revisionId, {
      secretValues: [],
      hostDetails: this.hostDetailsOf(state),
      onError,
    });
    log.write('deploy', line);
    await log.flush();
  }

  /** Host paths as a tenant may read them: relative to its deployment's tree, or hidden. */
  private hostDetailsOf(state: DeploymentState): HostDetails {
    return new HostDetails(this.deps.builder.tree.deploymentDir(state.deployment_id ?? ''), [
      this.deps.config.dataDir,
      PLATFORM_ROOT,
    ]);
  }

  /** Takes one step; returns what it leads the listener to record. */
  private async take(
    step: DeploymentStep,
    state: DeploymentState,
  ): Promise<readonly ListenerCommand[]> {
    const deploymentId = state.deployment_id ?? '';
    const now = new Date().toISOString();
    switch (step.kind) {
      case 'rest':
        return [];
      case 'tear_down':
        return this.tearDown(state, now);
      case 'provision':
        return this.provisioner.provision(deploymentId, now);
      case 'open_port': {
        // A live revision whose build is kept is started again next: the port says so meanwhile.
        const activeId = state.active_revision_id;
        const restarts =
          !!activeId && (await this.deps.builder.tree.isBuilt(deploymentId, activeId));
        await this.runtimes.ensureProxy(deploymentId, step.port, this.deps.config.host, restarts);
        return [];
      }
      case 'skip_superseded':
        return step.commands;
      case 'restart_active':
        // The live revision serves again (after a restart, or a crash) before anything is rebuilt.
        return this.restartActive(state, step.revision);
      case 'roll_out': {
        const rolling = this.rollout
          .roll(state, step.revision)
          .catch(this.deps.onError)
          .finally(() => {
            this.rollouts.delete(deploymentId);
            this.schedule(deploymentId);
          });
        this.rollouts.set(deploymentId, rolling);
        return [];
      }
    }
  }
}
