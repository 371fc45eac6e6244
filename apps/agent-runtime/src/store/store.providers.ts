import type { Provider } from '@nestjs/common';
import { Application } from '../application/application.js';
import { createGraphStore } from './graph-store.js';
import { StoreAccess } from './store-access.js';
import { StoreRequests } from './store-requests.service.js';
import { StoreExpirySweeper } from './store-expiry.sweeper.js';
import { StoreService } from './store.service.js';
import { StoreSettings } from './store-settings.js';
import { StoreVectorSearch } from './store-vector-search.js';
import { DeleteStoreItemHandler } from './delete-item/delete-store-item.handler.js';
import { PutStoreItemHandler } from './put-item/put-store-item.handler.js';

/** Seconds between sweeps of expired items when `store.ttl.sweep_interval_minutes` is not set. */
export const STORE_SWEEP_SECONDS = Symbol('STORE_SWEEP_SECONDS');

const GRAPH_STORE_ATTACHED = Symbol('GRAPH_STORE_ATTACHED');

/** The store's part of the runtime module; `Application`, the event store and the database come from it. */
export const STORE_PROVIDERS: Provider[] = [
  {
    provide: StoreSettings,
    useFactory: (application: Application, sweepSeconds: number): StoreSettings =>
      StoreSettings.from(
        application.config.store,
        (specifier, exportName) => application.importFromApplication(specifier, exportName),
        sweepSeconds,
      ),
    inject: [Application, STORE_SWEEP_SECONDS],
  },
  StoreVectorSearch,
  StoreService,
  StoreAccess,
  StoreRequests,
  PutStoreItemHandler,
  DeleteStoreItemHandler,
  StoreExpirySweeper,
  {
    provide: GRAPH_STORE_ATTACHED,
    useFactory: (application: Application, store: StoreService): boolean => {
      application.attachStore((BaseStore) => createGraphStore(BaseStore, store));
      return true;
    },
    inject: [Application, StoreService],
  },
];
