import type { Projection, RecordedEvent } from '#libs/event-store';
import { STORE_EVENT_TYPES, type StoreEvent } from './store.events.js';
import { namespacePath, storeItemId } from './store-namespace.js';
import { expiryOf } from './store.decider.js';
import { StoreItemEntity, type StoreItemRow } from './store-item.entity.js';

function itemIdOf(event: RecordedEvent): string | undefined {
  if (!STORE_EVENT_TYPES.has(event.type)) return undefined;
  const { namespace, key } = event.data as { namespace: string[]; key: string };
  return storeItemId(namespace, key);
}

export function evolveStoreItem(
  row: StoreItemRow | undefined,
  event: StoreEvent,
  itemId: string,
): StoreItemRow | undefined {
  switch (event.type) {
    case 'StoreItemPut': {
      const { namespace, key, value, vectors, ttl_minutes, put_at } = event.data;
      const expires = expiryOf(put_at, ttl_minutes);
      return {
        item_id: itemId,
        namespace,
        namespace_path: namespacePath(namespace),
        key,
        value,
        created_at: row?.created_at ?? new Date(put_at),
        updated_at: new Date(put_at),
        ttl_minutes,
        expires_at: expires === null ? null : new Date(expires),
        vectors,
      };
    }
    case 'StoreItemDeleted':
      return undefined;
    case 'StoreItemTtlRefreshed':
      if (!row || row.ttl_minutes === null) return row;
      return { ...row, expires_at: new Date(event.data.expires_at) };
    case 'StoreItemExpired':
      // Written or refreshed after the sweeper looked: it has another expiry, and lives on.
      if (row?.expires_at?.getTime() !== Date.parse(event.data.expires_at)) return row;
      return undefined;
  }
}

export const storeProjection: Projection<StoreItemRow> = {
  name: 'store_items',
  entity: StoreItemEntity,
  key: 'item_id',
  eventTypes: STORE_EVENT_TYPES,
  keyOf: itemIdOf,
  evolve: (row, event) =>
    evolveStoreItem(
      row,
      { type: event.type, data: event.data } as StoreEvent,
      itemIdOf(event) ?? event.eventId,
    ),
};
