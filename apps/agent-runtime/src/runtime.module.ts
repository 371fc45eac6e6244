import { MetricsController } from '#libs/metrics';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { Application } from './application/application.js';
import { AssistantsController } from './assistants/assistants.controller.js';
import { ASSISTANT_PROVIDERS } from './assistants/assistant.providers.js';
import { AuthorizationInterceptor } from './authorization/authorization.interceptor.js';
import { RequestAuthorization } from './authorization/request-authorization.js';
import { AuthorizedThreadCopy } from './authorization/thread-copy-admission.js';
import { ThreadCopyAdmission } from './threads/thread-copy-admission.js';
import { A2aAgents } from './a2a/a2a-agents.js';
import { A2aRunCreation } from './a2a/a2a-run-creation.js';
import { MCP_PROVIDERS } from './mcp/mcp.providers.js';
import { RunsController } from './runs/runs.controller.js';
import { RunsService } from './runs/runs.service.js';
import { RunWaits } from './runs/run-waits.js';
import { HttpDrain } from '#libs/http';
import { CronsController } from './crons/crons.controller.js';
import { cronProviders } from './crons/cron.providers.js';
import { StoreController } from './store/store.controller.js';
import { ProtocolController } from './protocol/protocol.controller.js';
import { ProtocolCommands } from './protocol/protocol-commands.js';
import { ThreadProtocolEvents } from './protocol/thread-protocol-events.js';
import { SocketTickets } from './protocol/socket-tickets.js';
import { STORE_PROVIDERS, STORE_SWEEP_SECONDS } from './store/store.providers.js';
import { SystemController } from './system/system.controller.js';
import { ThreadStateService } from './threads/thread-state.service.js';
import { ThreadStorageService } from './threads/thread-storage.service.js';
import { ThreadStateUpdates } from './threads/thread-state-updates.service.js';
import { ThreadCreation } from './threads/thread-creation.service.js';
import { THREAD_SWEEP_INTERVAL_MS, ThreadExpirySweeper } from './threads/thread-expiry.sweeper.js';
import { ThreadsController } from './threads/threads.controller.js';
import { UiController } from './ui/ui.controller.js';
import { DEFAULT_THREAD_TTL_MINUTES, ThreadsService } from './threads/threads.service.js';

import { PersistenceModule, type Persistence } from '#libs/persistence';
import { RELOAD_ON_CHANGE, SourceReloader } from './reload/source-reloader.js';
import { RuntimeCoreModule, type RuntimeCore } from './runtime-core.module.js';
import { RunWorkersModule } from './runs/run-workers.module.js';
import type { RunWorkerSettings } from './runs/run-workers.js';

export interface RuntimeParts extends RuntimeCore {
  readonly persistence: Persistence;
  /** Null in an API-only process. */
  readonly runWorkers: RunWorkerSettings | null;
  /** `berth dev`: serve the application anew when its files change. */
  readonly reloadOnChange: boolean;
  readonly threadSweepSeconds: number;
  /** Store items whose TTL ran out are deleted this often, unless `store.ttl` says (60 s). */
  readonly storeSweepSeconds?: number;
  /** How often each replica looks for due crons (5 s). */
  readonly cronPollSeconds?: number;
}

@Module({})
export class RuntimeModule {
  static forRoot(parts: RuntimeParts): DynamicModule {
    return {
      module: RuntimeModule,
      imports: [
        CqrsModule.forRoot(),
        PersistenceModule.forRoot(parts.persistence),
        RuntimeCoreModule.forRoot(parts),
        RunWorkersModule.forRoot(parts.runWorkers),
      ],
      controllers: [
        SystemController,
        AssistantsController,
        ThreadsController,
        RunsController,
        StoreController,
        CronsController,
        MetricsController,
        ProtocolController,
        UiController,
      ],
      providers: [
        ...ASSISTANT_PROVIDERS,
        ThreadsService,
        {
          provide: DEFAULT_THREAD_TTL_MINUTES,
          useFactory: (application: Application): number | null =>
            application.config.checkpointer?.defaultTtlMinutes ?? null,
          inject: [Application],
        },
        ThreadStateService,
        ThreadStorageService,
        ThreadStateUpdates,
        ThreadCreation,
        { provide: THREAD_SWEEP_INTERVAL_MS, useValue: parts.threadSweepSeconds * 1000 },
        ThreadExpirySweeper,
        RunsService,
        RunWaits,
        HttpDrain,
        ProtocolCommands,
        ThreadProtocolEvents,
        SocketTickets,
        { provide: STORE_SWEEP_SECONDS, useValue: parts.storeSweepSeconds ?? 60 },
        ...STORE_PROVIDERS,
        ...cronProviders(parts.cronPollSeconds ?? 5),
        { provide: RELOAD_ON_CHANGE, useValue: parts.reloadOnChange },
        SourceReloader,
        RequestAuthorization,
        { provide: ThreadCopyAdmission, useClass: AuthorizedThreadCopy },
        { provide: APP_INTERCEPTOR, useClass: AuthorizationInterceptor },
        A2aRunCreation,
        A2aAgents,
        ...MCP_PROVIDERS,
      ],
    };
  }
}
