import {
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventStore } from '#libs/event-store';
import type { Persistence } from './persistence.js';
import { ReadModelFreshness } from './read-model-freshness.js';

/** The app's opened persistence (see openPersistence). */
export const PERSISTENCE = Symbol('PERSISTENCE');

/**
 * The projection runners, following the log from the app's start; once its HTTP server has
 * closed, they project what was committed before and stop.
 */
@Injectable()
export class ProjectionRunners implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(PERSISTENCE) private readonly persistence: Persistence) {}

  onModuleInit(): void {
    for (const runner of this.persistence.runners) runner.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.persistence.runners.map((runner) => runner.drainAndStop()));
  }
}

/** An app's event store, read models and their freshness, for every module of the app. */
@Module({})
export class PersistenceModule {
  static forRoot(persistence: Persistence): DynamicModule {
    return {
      module: PersistenceModule,
      global: true,
      providers: [
        { provide: PERSISTENCE, useValue: persistence },
        { provide: EventStore, useFactory: () => persistence.eventStore },
        { provide: DataSource, useFactory: () => persistence.dataSource },
        {
          provide: ReadModelFreshness,
          useFactory: () => new ReadModelFreshness(persistence.eventStore, persistence.runners),
        },
        ProjectionRunners,
      ],
      exports: [PERSISTENCE, EventStore, DataSource, ReadModelFreshness],
    };
  }
}
