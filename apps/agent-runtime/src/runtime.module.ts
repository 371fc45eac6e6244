import { MetricsController } from '#libs/metrics';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { EventStore } from '#libs/event-store';
import { Application } from './application/application.js';
import { AssistantsController } from './assistants/assistants.controller.js';
import { AssistantGraphs } from './assistants/assistant-graphs.service.js';
import { AssistantsService } from './assistants/assistants.service.js';
import { AuthorizationInterceptor } from './authorization/authorization.interceptor.js';
import { CUSTOM_AUTH } from './auth/custom-auth.js';
import type { CustomAuth } from './auth/custom-auth.js';
import { GraphCatalog } from './common/runtime-tokens.js';
import { ReadModelFreshness } from '#libs/persistence';
import { NoRunObserver, RunObserver } from './runs/run-log.js';
import { RunQueue } from './run-records/run-queue.js';
import { RunSignals } from './runs/run-signals.js';
import { RunsController } from './runs/runs.controller.js';
import { RunsService } from './runs/runs.service.js';
import { CronsController } from './crons/crons.controller.js';
import { OwnedResources } from './common/owned-resources.js';
import { CronsService } from './crons/crons.service.js';
import { CronRemoval } from './crons/cron-removal.js';
import { CRON_POLL_INTERVAL_MS, CronScheduler } from './crons/cron.scheduler.js';
import { StoreController } from './store/store.controller.js';
import { STORE_PROVIDERS, STORE_SWEEP_SECONDS } from './store/store.providers.js';
import { SystemController } from './system/system.controller.js';
import { ThreadStateService } from './threads/thread-state.service.js';
import { ThreadStateUpdates } from './threads/thread-state-updates.service.js';
import { ThreadCreation } from './threads/thread-creation.service.js';
import { THREAD_SWEEP_INTERVAL_MS, ThreadExpirySweeper } from './threads/thread-expiry.sweeper.js';
import { ThreadsController } from './threads/threads.controller.js';
import { DEFAULT_THREAD_TTL_MINUTES, ThreadsService } from './threads/threads.service.js';

export interface RuntimeParts {
  readonly eventStore: EventStore;
  readonly dataSource: DataSource;
  readonly freshness: ReadModelFreshness;
  readonly application: Application;
  readonly queue: RunQueue;
  readonly signals: RunSignals;
  /** Told of every run whose outcome the API records (a pending run cancelled). */
  readonly runFinished?: RunObserver;
  readonly threadSweepSeconds: number;
  /** Store items whose TTL ran out are deleted this often, unless `store.ttl` says (60 s). */
  readonly storeSweepSeconds?: number;
  /** How often each replica looks for due crons (5 s). */
  readonly cronPollSeconds?: number;
  /** The application's own authentication (`auth.path`), when it has one. */
  readonly customAuth?: CustomAuth;
}

@Module({})
export class RuntimeModule {
  static forRoot(parts: RuntimeParts): DynamicModule {
    return {
      module: RuntimeModule,
      controllers: [
        SystemController,
        AssistantsController,
        ThreadsController,
        RunsController,
        StoreController,
        CronsController,
        MetricsController,
      ],
      providers: [
        { provide: EventStore, useValue: parts.eventStore },
        { provide: DataSource, useValue: parts.dataSource },
        { provide: ReadModelFreshness, useValue: parts.freshness },
        { provide: Application, useValue: parts.application },
        { provide: GraphCatalog, useValue: parts.application },
        { provide: RunQueue, useValue: parts.queue },
        { provide: RunSignals, useValue: parts.signals },
        {
          provide: RunObserver,
          useValue: parts.runFinished ?? new NoRunObserver(),
        },
        AssistantsService,
        AssistantGraphs,
        ThreadsService,
        {
          provide: DEFAULT_THREAD_TTL_MINUTES,
          useFactory: (application: Application): number | null =>
            application.config.checkpointer?.defaultTtlMinutes ?? null,
          inject: [Application],
        },
        ThreadStateService,
        ThreadStateUpdates,
        ThreadCreation,
        { provide: THREAD_SWEEP_INTERVAL_MS, useValue: parts.threadSweepSeconds * 1000 },
        ThreadExpirySweeper,
        RunsService,
        { provide: STORE_SWEEP_SECONDS, useValue: parts.storeSweepSeconds ?? 60 },
        ...STORE_PROVIDERS,
        CronsService,
        CronRemoval,
        { provide: OwnedResources, useExisting: CronRemoval },
        { provide: CRON_POLL_INTERVAL_MS, useValue: (parts.cronPollSeconds ?? 5) * 1000 },
        CronScheduler,
        { provide: CUSTOM_AUTH, useValue: parts.customAuth ?? null },
        { provide: APP_INTERCEPTOR, useClass: AuthorizationInterceptor },
      ],
    };
  }
}
