import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { uuidv7, type JsonObject } from '#libs/event-store';
import type { ControlPlaneConfig } from '../../control-plane.config.js';
import { CONTROL_PLANE_CONFIG } from '../../control-plane.tokens.js';
import { checkGitSource } from '../../isolation/git-source-policy.js';
import { ListenerDirectory } from '../../listeners/listener-directory.js';
import { SecretVault } from '../../secrets/secret-vault.js';
import { GitHostIntegrations } from '../../tenancy/git-host-integrations.js';
import {
  actorOf,
  DeploymentCommands,
  NameClaims,
  plainSecrets,
  recordedBy,
} from '../deployment-commands.js';
import { DeploymentQuota } from '../deployment-quota.service.js';
import type { DeploymentCommand } from '../domain/deployment.commands.js';
import { deploymentDecider } from '../domain/deployment.decider.js';
import { initialDeploymentState } from '../domain/deployment.evolve.js';
import {
  toDeploymentResource,
  type DeploymentResource,
} from '../read-model/deployment.resource.js';
import { CreateDeployment } from './create-deployment.command.js';

type CreateCommand = Extract<DeploymentCommand, { kind: 'create' }>;

/**
 * Every rule is checked first, so that a refused request takes no place in the tenant's quota,
 * claims no name and seals no secret; then the place, the name, the secrets, the deployment.
 */
@CommandHandler(CreateDeployment)
export class CreateDeploymentHandler implements ICommandHandler<CreateDeployment> {
  constructor(
    @Inject(DeploymentCommands) private readonly deployments: DeploymentCommands,
    @Inject(NameClaims) private readonly names: NameClaims,
    @Inject(DeploymentQuota) private readonly quota: DeploymentQuota,
    @Inject(SecretVault) private readonly vault: SecretVault,
    @Inject(ListenerDirectory) private readonly listeners: ListenerDirectory,
    @Inject(GitHostIntegrations) private readonly integrations: GitHostIntegrations,
    @Inject(CONTROL_PLANE_CONFIG) private readonly config: ControlPlaneConfig,
  ) {}

  async execute({ caller, body }: CreateDeployment): Promise<DeploymentResource> {
    const command = await this.commandOf({ caller, body });
    deploymentDecider.decide(command, initialDeploymentState);
    const deploymentId = command.deployment_id;
    const metadata = recordedBy(actorOf(caller));
    // A tenant at its quota is refused (409) before it claims a name.
    await this.quota.take(caller.tenant_id, deploymentId, metadata);
    try {
      await this.claimName(command, metadata);
      const secrets = await this.vault.seal(deploymentId, plainSecrets(body.secrets));
      const { state } = await this.deployments.handle(
        deploymentId,
        { ...command, secrets },
        { metadata },
      );
      return toDeploymentResource(state);
    } catch (error) {
      // Not created (a name taken, say): its place goes back.
      await this.quota.release(caller.tenant_id, deploymentId, metadata).catch(() => undefined);
      throw error;
    }
  }

  /** The decider's command, its secrets named but not yet sealed. */
  private async commandOf({
    caller,
    body,
  }: Pick<CreateDeployment, 'caller' | 'body'>): Promise<CreateCommand> {
    const config = body.source_config ?? {};
    checkGitSource(config.repo_url, this.config.allowLocalSources);
    return {
      kind: 'create',
      deployment_id: uuidv7(),
      tenant_id: caller.tenant_id,
      name: body.name,
      source: body.source,
      source_config: config,
      source_revision_config: body.source_revision_config ?? {},
      secrets: (body.secrets ?? []).map(({ name }) => ({ name, sealed: '' })),
      secret_references: body.secret_references ?? null,
      listener: config.listener_id
        ? await this.listeners.find(caller.tenant_id, config.listener_id)
        : null,
      integration_id: this.integrations.idOf(caller.tenant_id),
      revision_id: uuidv7(),
      tracing_project_id: uuidv7(),
      now: new Date().toISOString(),
    };
  }

  private async claimName(command: CreateCommand, metadata: JsonObject): Promise<void> {
    await this.names.handle(
      { tenant: command.tenant_id, name: command.name },
      { kind: 'claim', deployment_id: command.deployment_id, name: command.name },
      { metadata },
    );
  }
}
