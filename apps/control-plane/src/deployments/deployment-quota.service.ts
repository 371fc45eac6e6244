import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AggregateCommands, EventStore, type JsonObject } from '#libs/event-store';
import { CONTROL_PLANE_CONFIG } from '../control-plane.tokens.js';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import {
  deploymentQuotaDecider,
  deploymentQuotaStream,
} from './domain/deployment-quota.decider.js';

/**
 * How many deployments a tenant may have at once (`BERTH_TENANT_MAX_DEPLOYMENTS`): a place is
 * taken in the tenant's `deployment_quota-<tenant>` stream before a deployment is created, and
 * given back when it is deleted. One more than the quota is a 409; other tenants never notice.
 */
@Injectable()
export class DeploymentQuota {
  private readonly quotas;

  constructor(
    @Inject(EventStore) store: EventStore,
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
  ) {
    this.quotas = new AggregateCommands({
      store,
      decider: deploymentQuotaDecider,
      streamOf: deploymentQuotaStream,
    });
  }

  async take(tenantId: string, deploymentId: string, metadata: JsonObject): Promise<void> {
    // Deployments made before the quota was kept are in the read model only.
    const listed = await this.dataSource.query<{ deployment_id: string }[]>(
      'select deployment_id from deployments where tenant_id = $1',
      [tenantId],
    );
    const take = {
      kind: 'take',
      deployment_id: deploymentId,
      max: this.config.limits.tenantMaxDeployments,
      listed: listed.map((row) => row.deployment_id),
    } as const;
    await this.quotas.handle(tenantId, take, { metadata });
  }

  async release(tenantId: string, deploymentId: string, metadata: JsonObject): Promise<void> {
    await this.quotas.handle(
      tenantId,
      { kind: 'release', deployment_id: deploymentId },
      { metadata },
    );
  }
}
