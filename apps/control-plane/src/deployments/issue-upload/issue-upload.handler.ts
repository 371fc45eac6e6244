import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { UploadStore, type IssuedUpload } from '../../uploads/upload-store.js';
import { actorOf, DeploymentCommands, recordedBy } from '../deployment-commands.js';
import { IssueUpload } from './issue-upload.command.js';

@CommandHandler(IssueUpload)
export class IssueUploadHandler implements ICommandHandler<IssueUpload> {
  constructor(
    @Inject(DeploymentCommands) private readonly deployments: DeploymentCommands,
    @Inject(UploadStore) private readonly uploads: UploadStore,
  ) {}

  async execute({ caller, deploymentId, baseUrl }: IssueUpload): Promise<IssuedUpload> {
    const now = new Date();
    const issued = this.uploads.issue(deploymentId, baseUrl, now);
    await this.deployments.handle(
      deploymentId,
      {
        kind: 'issue_upload',
        deployment_id: deploymentId,
        tenant_id: caller.tenant_id,
        object_path: issued.object_path,
        expires_at: issued.expires_at,
        now: now.toISOString(),
      },
      { metadata: recordedBy(actorOf(caller)) },
    );
    return issued;
  }
}
