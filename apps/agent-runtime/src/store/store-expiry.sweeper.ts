import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
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
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    @Inject(StoreService) private readonly store: StoreService,
    @Inject(StoreSettings) private readonly settings: StoreSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.settings.sweepIntervalMs);
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One sweep; resolves with how many items it expired. */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let expired = 0;
    try {
      for (;;) {
        const count = await this.store.expire(BATCH);
        expired += count;
        if (count < BATCH) break;
      }
    } catch (error) {
      this.logger.warn(`Sweeping expired store items failed: ${String(error)}`);
    } finally {
      this.sweeping = false;
    }
    return expired;
  }
}
