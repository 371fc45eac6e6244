import { Global, Module, type DynamicModule } from '@nestjs/common';
import { HttpDrain } from '#libs/http';
import { CRON_CLOCK_AHEAD_MS, CRON_POLL_INTERVAL_MS } from './crons/cron.scheduler.js';
import { RELOAD_ON_CHANGE } from './reload/source-reloader.js';
import { STORE_SWEEP_SECONDS } from './store/store.providers.js';
import { THREAD_SWEEP_INTERVAL_MS } from './threads/thread-expiry.sweeper.js';

/** How often each sweeper and poller runs, and whether the sources are watched: for every module. */
export interface RuntimeSettings {
  readonly threadSweepSeconds: number;
  /** Store items whose TTL ran out are deleted this often, unless `store.ttl` says (60 s). */
  readonly storeSweepSeconds?: number;
  /** How often each replica looks for due crons (5 s). */
  readonly cronPollSeconds?: number;
  /** How far ahead of the machine's clock the cron scheduler's runs (0). */
  readonly cronClockAheadSeconds?: number;
  /** `berth dev`: serve the application anew when its files change. */
  readonly reloadOnChange: boolean;
}

/** The runtime's settings, and the drain of its HTTP server, as global providers. */
@Global()
@Module({})
export class RuntimeSettingsModule {
  static forRoot(settings: RuntimeSettings): DynamicModule {
    const providers = [
      { provide: THREAD_SWEEP_INTERVAL_MS, useValue: settings.threadSweepSeconds * 1000 },
      { provide: STORE_SWEEP_SECONDS, useValue: settings.storeSweepSeconds ?? 60 },
      { provide: CRON_POLL_INTERVAL_MS, useValue: (settings.cronPollSeconds ?? 5) * 1000 },
      { provide: CRON_CLOCK_AHEAD_MS, useValue: (settings.cronClockAheadSeconds ?? 0) * 1000 },
      { provide: RELOAD_ON_CHANGE, useValue: settings.reloadOnChange },
      { provide: HttpDrain, useClass: HttpDrain },
    ];
    return {
      module: RuntimeSettingsModule,
      providers,
      exports: providers.map((provider) => provider.provide),
    };
  }
}
