import { Module } from '@nestjs/common';
import { ListenersModule } from '../listeners/listeners.module.js';
import { RevisionLogs } from '../logs/revision-logs.js';
import { CreateDeploymentHandler } from './create-deployment/create-deployment.handler.js';
import { DeleteDeploymentHandler } from './delete-deployment/delete-deployment.handler.js';
import { DeploymentCommands, NameClaims } from './deployment-commands.js';
import { DeploymentLogs } from './deployment-logs.service.js';
import { DeploymentQueries } from './deployment-queries.service.js';
import { DeploymentQuota } from './deployment-quota.service.js';
import { DeploymentStatusPageController } from './deployment-status-page.controller.js';
import { DeploymentsController } from './deployments.controller.js';
import { IssueUploadHandler } from './issue-upload/issue-upload.handler.js';
import { PatchDeploymentHandler } from './patch-deployment/patch-deployment.handler.js';
import { ProjectLogsController } from './project-logs.controller.js';
import { DeploymentHistory } from './read-model/deployment-history.js';
import { RedeployRevisionHandler } from './redeploy-revision/redeploy-revision.handler.js';

/** `/v2/deployments`: deployments, their revisions, history and logs, and their commands. */
@Module({
  imports: [ListenersModule],
  controllers: [DeploymentsController, ProjectLogsController, DeploymentStatusPageController],
  providers: [
    DeploymentCommands,
    NameClaims,
    DeploymentQueries,
    DeploymentQuota,
    DeploymentHistory,
    RevisionLogs,
    DeploymentLogs,
    CreateDeploymentHandler,
    PatchDeploymentHandler,
    DeleteDeploymentHandler,
    RedeployRevisionHandler,
    IssueUploadHandler,
  ],
  exports: [DeploymentQueries],
})
export class DeploymentsModule {}
