import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { PeriodicPass } from '../common/periodic-pass.js';
import { StoreService } from './store.service.js';
import { StoreSettings } from './store-settings.js';

const BATCH = 500;

/**
 * Removes items whose TTL ran out (`StoreItemExpired`); reads hide them from the moment they
 * expire, so the sweep only reclaims space. Every replica sweeps: an item expired twice, or
 * refreshed since it was seen, is left as it is by the read model.
 */
@Injectable()
export class StoreExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('store');
  private readonly passes = new PeriodicPass(
    () => this.sweep(),
    (error) => {
      this.logger.warn(`Sweeping expired store items failed: ${String(error)}`);
    },
  );

  constructor(
    @Inject(StoreService) private readonly store: StoreService,
    @Inject(StoreSettings) private readonly settings: StoreSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.passes.start(this.settings.sweepIntervalMs);
  }

  onApplicationShutdown(): Promise<void> {
    return this.passes.stop();
  }

  /** One sweep, in batches until none is full. */
  private async sweep(): Promise<void> {
    for (;;) {
      if ((await this.store.expire(BATCH)) < BATCH) return;
    }
  }
}
