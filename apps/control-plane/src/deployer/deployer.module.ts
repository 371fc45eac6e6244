import { Module, type DynamicModule } from '@nestjs/common';
import { join } from 'node:path';
import { buildsDirectory, type PlatformResources } from '../platform-resources.js';
import { CommandRegistry } from './command-registry.js';
import { DeploymentReconciler } from './deployment-reconciler.js';
import { DiskQuota } from './disk-quota.js';
import { SourceBuilder } from './source-builder.js';

export interface DeployerLog {
  readonly onError: (error: unknown) => void;
  /** The operator's log: where each revision's runtime listens, and the like. */
  readonly onInfo: (message: string) => void;
}

/**
 * The reconciler, doing the local listener's work on this machine; absent when
 * `BERTH_LOCAL_LISTENER=false`.
 */
@Module({})
export class DeployerModule {
  static forRoot(resources: PlatformResources, log: DeployerLog): DynamicModule {
    return {
      module: DeployerModule,
      providers: resources.config.localListener
        ? [{ provide: DeploymentReconciler, useFactory: () => reconcilerOf(resources, log) }]
        : [],
    };
  }
}

function reconcilerOf(resources: PlatformResources, log: DeployerLog): DeploymentReconciler {
  const { config } = resources;
  return new DeploymentReconciler({
    config,
    store: resources.eventStore,
    pool: resources.pool,
    serverUrl: resources.database.url,
    vault: resources.vault,
    uploads: resources.uploads,
    builder: new SourceBuilder(
      buildsDirectory(config),
      new CommandRegistry(join(config.dataDir, 'run', 'commands')),
      config.allowLocalSources,
      new DiskQuota(config.jail.deploymentDiskBytes),
      resources.sandbox.jailer,
    ),
    tenants: resources.tenants,
    sandbox: resources.sandbox,
    tracing: resources.tracingTokens,
    courier: resources.courier,
    ...log,
  });
}
