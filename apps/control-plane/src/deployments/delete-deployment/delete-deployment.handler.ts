import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SecretVault } from '../../secrets/secret-vault.js';
import { clusterHoldsObjects } from '../domain/cluster-listener.js';
import { actorOf, DeploymentCommands, NameClaims, recordedBy } from '../deployment-commands.js';
import { DeploymentQuota } from '../deployment-quota.service.js';
import { DeleteDeployment } from './delete-deployment.command.js';

/**
 * Asks for the deployment's tear-down, which its listener does in the background; the name and
 * the place in the tenant's quota are given back at once.
 */
@CommandHandler(DeleteDeployment)
export class DeleteDeploymentHandler implements ICommandHandler<DeleteDeployment> {
  constructor(
    @Inject(DeploymentCommands) private readonly deployments: DeploymentCommands,
    @Inject(NameClaims) private readonly names: NameClaims,
    @Inject(DeploymentQuota) private readonly quota: DeploymentQuota,
    @Inject(SecretVault) private readonly vault: SecretVault,
  ) {}

  async execute({ caller, deploymentId }: DeleteDeployment): Promise<void> {
    const metadata = recordedBy(actorOf(caller));
    const now = new Date().toISOString();
    const { state } = await this.deployments.handle(
      deploymentId,
      { kind: 'delete', deployment_id: deploymentId, tenant_id: caller.tenant_id, now },
      { metadata },
    );
    // A cluster listener that never took the deployment has nothing to tear down: it is gone at
    // once. Otherwise the listener tears its objects down and reports it (cluster-protocol/).
    if (state.source === 'external_container' && !state.deleted && !clusterHoldsObjects(state)) {
      await this.vault.forget(deploymentId);
      await this.deployments.handle(deploymentId, { kind: 'torn_down', now }, { metadata });
    }
    await this.names.handle(
      { tenant: caller.tenant_id, name: state.name },
      { kind: 'release', deployment_id: deploymentId },
      { metadata },
    );
    await this.quota.release(caller.tenant_id, deploymentId, metadata);
  }
}
