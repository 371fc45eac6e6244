import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { PersistenceModule } from '#libs/persistence';
import { AuditModule } from './audit/audit.module.js';
import { ClusterProtocolModule } from './cluster-protocol/cluster-protocol.module.js';
import { DeployerModule, type DeployerLog } from './deployer/deployer.module.js';
import { DeploymentsModule } from './deployments/deployments.module.js';
import { HealthModule } from './health/health.module.js';
import { IntegrationsModule } from './integrations/integrations.module.js';
import { ListenersModule } from './listeners/listeners.module.js';
import { PlatformModule } from './platform.module.js';
import { RevisionChangesModule } from './revision-changes/revision-changes.module.js';
import type { PlatformResources } from './platform-resources.js';
import { TracingModule } from './tracing/tracing.module.js';
import { UploadsModule } from './uploads/uploads.module.js';

/** The control plane: the platform's resources, one module per feature, and the local listener. */
@Module({})
export class ControlPlaneModule {
  static forRoot(resources: PlatformResources, log?: DeployerLog): DynamicModule {
    return {
      module: ControlPlaneModule,
      imports: [
        CqrsModule.forRoot(),
        PersistenceModule.forRoot(resources),
        PlatformModule.forRoot(resources),
        HealthModule,
        DeploymentsModule,
        ListenersModule,
        ClusterProtocolModule,
        IntegrationsModule,
        TracingModule,
        UploadsModule,
        AuditModule,
        RevisionChangesModule,
        ...(log ? [DeployerModule.forRoot(resources, log)] : []),
      ],
    };
  }
}
