import type { JsonObject } from '#libs/event-store';
import { openJsonKeys } from '../common/json-keys-column.js';
import type { StoreItemRow } from './store-item.entity.js';

/** An item as the SDK gets it. */
export interface StoreItem {
  namespace: string[];
  key: string;
  value: JsonObject;
  created_at: string;
  updated_at: string;
  /** Cosine similarity to the query; only on a semantic search, null for unindexed items. */
  score?: number | null;
}

export interface StoreItemFound extends StoreItem {
  /** Needed to refresh the item's TTL; not shown. */
  readonly ttlMinutes: number | null;
  readonly expiresAt: string | null;
}

/** A row of `store_items` as the reads select it (`ITEM_COLUMNS`, and a search's score). */
export type ItemRecord = Pick<
  StoreItemRow,
  'namespace' | 'key' | 'value' | 'created_at' | 'updated_at' | 'ttl_minutes' | 'expires_at'
> & { score?: number | null };

export const ITEM_COLUMNS =
  'namespace, key, value, created_at, updated_at, ttl_minutes, expires_at';

/** Not expired at `$1`. */
export const LIVE = '(expires_at is null or expires_at > $1)';

/** Ties between equal scores (and the order without a query): newest first. */
export const ITEM_ORDER = 'updated_at desc, namespace_path, key';

export function toItem(record: ItemRecord, withScore: boolean): StoreItemFound {
  return {
    namespace: record.namespace,
    key: record.key,
    value: openJsonKeys(record.value),
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
    ...(withScore ? { score: record.score === null ? null : Number(record.score) } : {}),
    ttlMinutes: record.ttl_minutes,
    expiresAt: record.expires_at?.toISOString() ?? null,
  };
}
