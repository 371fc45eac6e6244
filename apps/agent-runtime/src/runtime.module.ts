import { Module, type DynamicModule } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { PersistenceModule, type Persistence } from '#libs/persistence';
import { A2aModule } from './a2a/a2a.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AssistantsModule } from './assistants/assistants.module.js';
import { AuthorizationModule } from './authorization/authorization.module.js';
import { CronRecordsModule } from './crons/cron-records.module.js';
import { CronsModule } from './crons/crons.module.js';
import { McpModule } from './mcp/mcp.module.js';
import { ProtocolModule } from './protocol/protocol.module.js';
import { ReloadModule } from './reload/reload.module.js';
import { RunWorkersModule } from './runs/run-workers.module.js';
import type { RunWorkerSettings } from './runs/run-workers.js';
import { RunsModule } from './runs/runs.module.js';
import { RuntimeCoreModule, type RuntimeCore } from './runtime-core.module.js';
import { RuntimeSettingsModule, type RuntimeSettings } from './runtime-settings.module.js';
import { StoreModule } from './store/store.module.js';
import { SystemModule } from './system/system.module.js';
import { ThreadsModule } from './threads/threads.module.js';
import { UiModule } from './ui/ui.module.js';

export interface RuntimeParts extends RuntimeCore, RuntimeSettings {
  readonly persistence: Persistence;
  /** Null in an API-only process. */
  readonly runWorkers: RunWorkerSettings | null;
}

/** One application's agent runtime: what main.ts opened, and one module per feature. */
@Module({})
export class RuntimeModule {
  static forRoot(parts: RuntimeParts): DynamicModule {
    return {
      module: RuntimeModule,
      imports: [
        CqrsModule.forRoot(),
        PersistenceModule.forRoot(parts.persistence),
        RuntimeCoreModule.forRoot(parts),
        RuntimeSettingsModule.forRoot(parts),
        RunWorkersModule.forRoot(parts.runWorkers),
        CronRecordsModule,
        SystemModule,
        AssistantsModule,
        ThreadsModule,
        RunsModule,
        StoreModule,
        CronsModule,
        ProtocolModule,
        UiModule,
        AuthorizationModule,
        A2aModule,
        McpModule,
        ReloadModule,
        AuditModule,
      ],
    };
  }
}
