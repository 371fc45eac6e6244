import { MetricsController } from '#libs/metrics';
import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { PersistenceModule } from '#libs/persistence';
import { CONTROL_PLANE_CONFIG, PG_POOL, PLATFORM_RESOURCES } from './control-plane.tokens.js';
import { DeploymentHistory } from './deployments/read-model/deployment-history.js';
import { DeploymentStatusPageController } from './deployments/deployment-status-page.controller.js';
import { DeploymentsController } from './deployments/deployments.controller.js';
import { CreateDeploymentHandler } from './deployments/create-deployment/create-deployment.handler.js';
import { DeleteDeploymentHandler } from './deployments/delete-deployment/delete-deployment.handler.js';
import { DeploymentCommands, NameClaims } from './deployments/deployment-commands.js';
import { IssueUploadHandler } from './deployments/issue-upload/issue-upload.handler.js';
import { PatchDeploymentHandler } from './deployments/patch-deployment/patch-deployment.handler.js';
import { RedeployRevisionHandler } from './deployments/redeploy-revision/redeploy-revision.handler.js';
import { DeploymentQueries } from './deployments/deployment-queries.service.js';
import { DeploymentQuota } from './deployments/deployment-quota.service.js';
import { DeploymentLogs } from './deployments/deployment-logs.service.js';
import { HealthController } from './health/health.controller.js';
import { GitHostIntegrations } from './tenancy/git-host-integrations.js';
import { GitHostController } from './integrations/git-host.controller.js';
import { GitPushService } from './integrations/git-push.service.js';
import { ListenerDirectory } from './listeners/listener-directory.js';
import { ListenersController } from './listeners/listeners.controller.js';
import { RegisterListenerHandler } from './listeners/register-listener/register-listener.handler.js';
import { ProjectLogsController } from './deployments/project-logs.controller.js';
import { RevisionLogs } from './logs/revision-logs.js';
import type { PlatformResources } from './platform-resources.js';
import { DeployerModule, type DeployerLog } from './deployer/deployer.module.js';
import { SecretVault } from './secrets/secret-vault.js';
import { TracingController } from './tracing/tracing.controller.js';
import { TracingService, TracingTokens } from './tracing/tracing.service.js';
import { UploadsController } from './uploads/uploads.controller.js';
import { UploadStore } from './uploads/upload-store.js';

@Module({})
export class ControlPlaneModule {
  static forRoot(resources: PlatformResources, log?: DeployerLog): DynamicModule {
    return {
      module: ControlPlaneModule,
      imports: [
        CqrsModule.forRoot(),
        PersistenceModule.forRoot(resources),
        ...(log ? [DeployerModule.forRoot(resources, log)] : []),
      ],
      controllers: [
        HealthController,
        DeploymentsController,
        ListenersController,
        GitHostController,
        TracingController,
        UploadsController,
        ProjectLogsController,
        DeploymentStatusPageController,
        MetricsController,
      ],
      providers: [
        { provide: PLATFORM_RESOURCES, useValue: resources },
        { provide: CONTROL_PLANE_CONFIG, useValue: resources.config },
        { provide: PG_POOL, useValue: resources.pool },
        { provide: SecretVault, useValue: resources.vault },
        { provide: UploadStore, useValue: resources.uploads },
        { provide: TracingTokens, useValue: resources.tracingTokens },
        GitHostIntegrations,
        GitPushService,
        ListenerDirectory,
        DeploymentCommands,
        NameClaims,
        CreateDeploymentHandler,
        PatchDeploymentHandler,
        DeleteDeploymentHandler,
        RedeployRevisionHandler,
        IssueUploadHandler,
        RegisterListenerHandler,
        DeploymentQueries,
        DeploymentQuota,
        DeploymentHistory,
        RevisionLogs,
        DeploymentLogs,
        TracingService,
      ],
    };
  }
}
