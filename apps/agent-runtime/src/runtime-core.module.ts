import { EventStore } from '#libs/event-store';
import { Module, type DynamicModule } from '@nestjs/common';
import { Application } from './application/application.js';
import { CUSTOM_AUTH, type CustomAuth } from './auth/custom-auth.js';
import { GraphCatalog } from './common/runtime-tokens.js';
import { ServedRoutes } from './http/served-routes.js';
import { RunQueue } from './run-records/run-queue.js';
import { NoRunObserver, RunObserver } from './run-records/run-observers.js';
import { RunSignals } from './run-records/run-signals.js';
import {
  FinishedValuesMemory,
  finishedValuesMemoryOf,
} from './run-records/finished-values-memory.js';
import { UiBundles } from './ui/ui-bundles.js';

/** What this process opened before Nest started: one of each, for every module. */
export interface RuntimeCore {
  readonly application: Application;
  readonly routes: ServedRoutes;
  /** The generative UI bundles (`ui` of `langgraph.json`). */
  readonly ui: UiBundles;
  readonly queue: RunQueue;
  readonly signals: RunSignals;
  /** Told of every run that starts or finishes here. */
  readonly runObserver?: RunObserver;
  /** The application's own authentication (`auth.path`), when it has one. */
  readonly customAuth?: CustomAuth;
}

@Module({})
export class RuntimeCoreModule {
  static forRoot(core: RuntimeCore): DynamicModule {
    const providers = [
      { provide: Application, useFactory: () => core.application },
      { provide: GraphCatalog, useFactory: () => core.application },
      { provide: ServedRoutes, useFactory: () => core.routes },
      { provide: UiBundles, useFactory: () => core.ui },
      { provide: RunQueue, useFactory: () => core.queue },
      { provide: RunSignals, useFactory: () => core.signals },
      { provide: RunObserver, useFactory: () => core.runObserver ?? new NoRunObserver() },
      { provide: CUSTOM_AUTH, useFactory: () => core.customAuth ?? null },
      {
        provide: FinishedValuesMemory,
        useFactory: (store: EventStore) => finishedValuesMemoryOf(store),
        inject: [EventStore],
      },
    ];
    return {
      module: RuntimeCoreModule,
      global: true,
      providers,
      exports: providers.map((provider) => provider.provide),
    };
  }
}
