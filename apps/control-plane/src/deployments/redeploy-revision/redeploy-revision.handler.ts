import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { notFound } from '#libs/domain';
import { actorOf, DeploymentCommands, recordedBy } from '../deployment-commands.js';
import { findRevision } from '../domain/deployment.state.js';
import { toRevisionResource, type RevisionResource } from '../read-model/deployment.resource.js';
import { RedeployRevision } from './redeploy-revision.command.js';

@CommandHandler(RedeployRevision)
export class RedeployRevisionHandler implements ICommandHandler<RedeployRevision> {
  constructor(@Inject(DeploymentCommands) private readonly deployments: DeploymentCommands) {}

  async execute({ caller, deploymentId, revisionId }: RedeployRevision): Promise<RevisionResource> {
    const { state } = await this.deployments.handle(
      deploymentId,
      {
        kind: 'redeploy',
        deployment_id: deploymentId,
        tenant_id: caller.tenant_id,
        revision_id: revisionId,
        now: new Date().toISOString(),
      },
      { metadata: recordedBy(actorOf(caller)) },
    );
    const revision = findRevision(state, revisionId);
    if (!revision) throw notFound(`Revision ${revisionId} not found`);
    return toRevisionResource(state, revision);
  }
}
