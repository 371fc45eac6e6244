import { Global, Module, type DynamicModule } from '@nestjs/common';
import { CONTROL_PLANE_CONFIG, PG_POOL, PLATFORM_RESOURCES } from './control-plane.tokens.js';
import type { PlatformResources } from './platform-resources.js';
import { SecretVault } from './secrets/secret-vault.js';
import { GitHostIntegrations } from './tenancy/git-host-integrations.js';
import { TracingTokens } from './tracing/tracing.service.js';
import { UploadStore } from './uploads/upload-store.js';

/** What main.ts opened before Nest started, for every feature module: one of each. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(resources: PlatformResources): DynamicModule {
    const providers = [
      { provide: PLATFORM_RESOURCES, useValue: resources },
      { provide: CONTROL_PLANE_CONFIG, useValue: resources.config },
      { provide: PG_POOL, useValue: resources.pool },
      { provide: SecretVault, useValue: resources.vault },
      { provide: UploadStore, useValue: resources.uploads },
      { provide: TracingTokens, useValue: resources.tracingTokens },
      { provide: GitHostIntegrations, useClass: GitHostIntegrations },
    ];
    return {
      module: PlatformModule,
      providers,
      exports: providers.map((provider) => provider.provide),
    };
  }
}
