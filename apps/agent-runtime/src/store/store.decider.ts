import { invalid, requireObject, requireText, type Decider, type JsonObject } from '#libs/domain';
import type { StoreEvent, StoreVectors } from './store.events.js';

/** What a write needs to know of the item as it stands (from the read model). */
export interface StoreItemState {
  readonly ttlMinutes: number | null;
  readonly expiresAt: string | null;
}

/** A write to one item, at `now`. */
export type StoreCommand = StoreWrite & { readonly now: string };

/** What is written, whenever it is. */
export type StoreWrite =
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
 * The namespace names the item's stream (`store-<labels joined with dots>`) and fills an indexed
 * column: PostgreSQL's b-tree indexes take at most about 2.7 kB a row, so the path is bounded well
 * below that (and the key too, which only the event holds).
 */
export const MAX_NAMESPACE_BYTES = 1_000;
const MAX_KEY = 1_024;

function checkItem(namespace: readonly unknown[], key: unknown): void {
  if (!Array.isArray(namespace)) throw invalid('namespace', 'must be a list of strings');
  for (const label of namespace)
    requireText('namespace', label, { maxLength: MAX_NAMESPACE_BYTES });
  if (new TextEncoder().encode(namespace.join('.')).length > MAX_NAMESPACE_BYTES) {
    throw invalid(
      'namespace',
      `must be at most ${MAX_NAMESPACE_BYTES} bytes, its labels joined with dots`,
    );
  }
  requireText('key', key, { maxLength: MAX_KEY, allowEmpty: true });
}

/**
 * The store is last-writer-wins: puts and deletes always happen, in log order. Only a read that
 * refreshes and the sweeper depend on the item: an item without TTL is never refreshed, and an
 * item is expired only once its expiry has passed (and only that expiry: see the projection).
 */
function decideStore(command: StoreCommand, item: StoreItemState | null): StoreEvent[] {
  const { namespace, key, now } = command;
  switch (command.kind) {
    case 'put':
      checkItem(namespace, key);
      requireObject('value', command.value);
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
      checkItem(namespace, key);
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

/** What the item's own events leave of it: its TTL and expiry; null once deleted or expired. */
function evolveStoreItem(item: StoreItemState | null, event: StoreEvent): StoreItemState | null {
  switch (event.type) {
    case 'StoreItemPut': {
      const { ttl_minutes: ttlMinutes, put_at: putAt } = event.data;
      return { ttlMinutes, expiresAt: expiryOf(putAt, ttlMinutes) };
    }
    case 'StoreItemDeleted':
      return null;
    case 'StoreItemTtlRefreshed':
      return item && { ...item, expiresAt: event.data.expires_at };
    case 'StoreItemExpired':
      // Written or refreshed since the sweeper looked: another expiry, and the item stays.
      return item?.expiresAt === event.data.expires_at ? null : item;
  }
}

/**
 * One store item as a decider. The service decides on the item as the read model holds it (a
 * namespace's stream holds all its items), so `evolve` serves the specs and any fold of one item.
 */
export const storeDecider: Decider<StoreItemState | null, StoreCommand, StoreEvent> = {
  initialState: null,
  evolve: evolveStoreItem,
  decide: decideStore,
};
