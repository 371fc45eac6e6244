import { Module, type DynamicModule } from '@nestjs/common';
import { RUN_WORKER_SETTINGS, RunWorkers, type RunWorkerSettings } from './run-workers.js';

/** The run workers of this process; none in an API-only process (`settings` null). */
@Module({})
export class RunWorkersModule {
  static forRoot(settings: RunWorkerSettings | null): DynamicModule {
    return {
      module: RunWorkersModule,
      providers: [{ provide: RUN_WORKER_SETTINGS, useValue: settings }, RunWorkers],
    };
  }
}
