import type { JsonObject } from '#libs/domain';
import type { StoreEvent, StoreVectors } from './store.events.js';

/** What a write needs to know of the item as it stands (from the read model). */
export interface StoreItemState {
  readonly ttlMinutes: number | null;
  readonly expiresAt: string | null;
}

export type StoreCommand =
  | {
      readonly kind: 'put';
      readonly namespace: string[];
      readonly key: string;
      readonly value: JsonObject;
      readonly vectors: StoreVectors | null;
      readonly ttlMinutes: number | null;
    }
  | { readonly kind: 'delete'; readonly namespace: string[]; readonly key: string }
  | { readonly kind: 'refresh_ttl'; readonly namespace: string[]; readonly key: string }
  | { readonly kind: 'expire'; readonly namespace: string[]; readonly key: string };

const MINUTE_MS = 60_000;

export function expiryOf(from: string, ttlMinutes: number | null): string | null {
  return ttlMinutes === null
    ? null
    : new Date(Date.parse(from) + ttlMinutes * MINUTE_MS).toISOString();
}

/**
 * The store is last-writer-wins: puts and deletes always happen, in log order. Only a read that
 * refreshes and the sweeper depend on the item: an item without TTL is never refreshed, and an
 * item is expired only once its expiry has passed (and only that expiry: see the projection).
 */
export function decideStore(
  command: StoreCommand,
  item: StoreItemState | undefined,
  now: string,
): StoreEvent[] {
  const { namespace, key } = command;
  switch (command.kind) {
    case 'put':
      return [
        {
          type: 'StoreItemPut',
          data: {
            namespace,
            key,
            value: command.value,
            vectors: command.vectors,
            ttl_minutes: command.ttlMinutes,
            put_at: now,
          },
        },
      ];
    case 'delete':
      return [{ type: 'StoreItemDeleted', data: { namespace, key, deleted_at: now } }];
    case 'refresh_ttl': {
      const expiresAt = item ? expiryOf(now, item.ttlMinutes) : null;
      if (expiresAt === null || expiresAt === item?.expiresAt) return [];
      return [{ type: 'StoreItemTtlRefreshed', data: { namespace, key, expires_at: expiresAt } }];
    }
    case 'expire':
      if (!item?.expiresAt || Date.parse(item.expiresAt) > Date.parse(now)) return [];
      return [
        {
          type: 'StoreItemExpired',
          data: { namespace, key, expires_at: item.expiresAt, expired_at: now },
        },
      ];
  }
}
