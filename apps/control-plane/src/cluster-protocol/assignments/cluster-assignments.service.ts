import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type Repository } from 'typeorm';
import { conflict, notFound } from '#libs/domain';
import { ReadModelFreshness } from '#libs/persistence';
import type { ControlPlaneConfig } from '../../control-plane.config.js';
import { CONTROL_PLANE_CONFIG, PLATFORM_RESOURCES } from '../../control-plane.tokens.js';
import { clusterAssignmentOf } from '../../deployments/domain/cluster-listener.js';
import type { DeploymentState } from '../../deployments/domain/deployment.state.js';
import {
  DeploymentEntity,
  type DeploymentRow,
} from '../../deployments/read-model/deployment.entity.js';
import type { PlatformResources } from '../../platform-resources.js';
import { SecretVault } from '../../secrets/secret-vault.js';
import type { Caller } from '../../tenancy/tenant-directory.js';
import { ListenerDirectory } from '../../listeners/listener-directory.js';
import { ListenerPresence } from '../../listeners/listener-presence.js';
import type { AssignedDeployment, ListenerAssignments } from '#libs/listener-protocol';
import { applyAssignment, tearDownAssignment, type RevisionSecrets } from './assignment-payload.js';

/** How often a waiting poll looks again; and the longest a poll may wait. */
const LOOK_AGAIN_MS = 500;
export const MAX_WAIT_SECONDS = 30;

/**
 * What a cluster listener is to do: every deployment naming it, each with the revision to apply
 * (its secrets sealed for the listener's key) or its tear-down. A poll that names the `etag` it
 * has waits, up to `wait` seconds, for a change.
 */
@Injectable()
export class ClusterAssignments {
  private readonly rows: Repository<DeploymentRow>;

  constructor(
    @Inject(DataSource) dataSource: DataSource,
    @Inject(ReadModelFreshness) private readonly freshness: ReadModelFreshness,
    @Inject(ListenerDirectory) private readonly listeners: ListenerDirectory,
    @Inject(ListenerPresence) private readonly presence: ListenerPresence,
    @Inject(SecretVault) private readonly vault: SecretVault,
    @Inject(PLATFORM_RESOURCES) private readonly platform: PlatformResources,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
  ) {
    this.rows = dataSource.getRepository(DeploymentEntity);
  }

  async poll(
    caller: Caller,
    listenerId: string,
    options: {
      readonly after?: string;
      readonly waitSeconds: number;
      readonly signal: AbortSignal;
    },
  ): Promise<ListenerAssignments> {
    const listener = await this.listeners.resource(caller.tenant_id, listenerId);
    if (!listener || listener.compute_type !== 'cluster') {
      throw notFound(`Listener ${listenerId} not found`);
    }
    const publicKey = listener.compute_config.public_key;
    if (typeof publicKey !== 'string') {
      throw conflict(
        `Listener ${listenerId} has no compute_config.public_key: register the listener with the public key its secrets are sealed for`,
      );
    }
    const deadline = Date.now() + Math.min(options.waitSeconds, MAX_WAIT_SECONDS) * 1000;
    for (;;) {
      this.presence.seen(listenerId);
      const states = await this.statesOf(caller.tenant_id, listenerId);
      const etag = etagOf(states);
      if (etag !== options.after || Date.now() >= deadline || options.signal.aborted) {
        const deployments = await this.assigned(states, { id: listenerId, publicKey });
        return { listener_id: listenerId, etag, deployments };
      }
      await sleep(LOOK_AGAIN_MS, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }

  private async statesOf(tenantId: string, listenerId: string): Promise<DeploymentState[]> {
    await this.freshness.catchUp('deployments');
    const rows = await this.rows
      .createQueryBuilder('d')
      .where('d.tenant_id = :tenantId', { tenantId })
      .andWhere("d.state -> 'source_config' ->> 'listener_id' = :listenerId", { listenerId })
      .orderBy('d.created_at', 'ASC')
      .getMany();
    return rows.map((row) => row.state);
  }

  private async assigned(
    states: readonly DeploymentState[],
    listener: { readonly id: string; readonly publicKey: string },
  ): Promise<AssignedDeployment[]> {
    const assigned: AssignedDeployment[] = [];
    for (const state of states) {
      const assignment = clusterAssignmentOf(state);
      if (assignment.action === 'tear_down') assigned.push(tearDownAssignment(state));
      if (assignment.action !== 'apply') continue;
      const { revision } = assignment;
      const opened = await this.secretsOf(state, revision.secrets);
      assigned.push(applyAssignment(state, revision, listener, opened));
    }
    return assigned;
  }

  /** The runtime's settings: the tenant's key digests, its tracing project; the secrets opened. */
  private async secretsOf(
    state: DeploymentState,
    sealed: DeploymentState['secrets'],
  ): Promise<RevisionSecrets> {
    const deploymentId = state.deployment_id ?? '';
    const projectId = state.tracing_project_id ?? '';
    const tracing: RevisionSecrets = this.config.publicUrl
      ? {
          env: {
            BERTH_TRACING_ENDPOINT: `${this.config.publicUrl}/v1/tracing-projects/${projectId}/runs`,
          },
          secrets: [
            { name: 'BERTH_TRACING_TOKEN', value: this.platform.tracingTokens.tokenOf(projectId) },
          ],
        }
      : { env: {}, secrets: [] };
    return {
      env: {
        BERTH_API_KEY_SHA256: this.platform.tenants.keyDigestsOf(state.tenant_id ?? '').join(','),
        ...tracing.env,
      },
      secrets: [...(await this.vault.open(deploymentId, sealed)), ...tracing.secrets],
    };
  }
}

/** A digest of where each deployment's stream stands: it moves with any of their events. */
function etagOf(states: readonly DeploymentState[]): string {
  const hash = createHash('sha256');
  for (const state of states) hash.update(`${state.deployment_id ?? ''}@${state.version}\n`);
  return hash.digest('hex').slice(0, 32);
}
