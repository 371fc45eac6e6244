import { Module } from '@nestjs/common';
import { StoreController } from './store.controller.js';
import { STORE_PROVIDERS } from './store.providers.js';

/** `/store`: long-term memory, its semantic search, and its TTL sweeper. */
@Module({ controllers: [StoreController], providers: STORE_PROVIDERS })
export class StoreModule {}
