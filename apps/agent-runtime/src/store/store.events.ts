import type { JsonObject } from '#libs/domain';

/** The embeddings of an item, by the JSON path of the text embedded (`$`, `text`, `tags.0`). */
export type StoreVectors = { [path: string]: number[] };

export type StoreEvent =
  | {
      readonly type: 'StoreItemPut';
      readonly data: {
        namespace: string[];
        key: string;
        value: JsonObject;
        /** Null when the item is not indexed for semantic search. */
        vectors: StoreVectors | null;
        /** Deleted once unread and unwritten this long; null: kept until deleted. */
        ttl_minutes: number | null;
        put_at: string;
      };
    }
  | {
      readonly type: 'StoreItemDeleted';
      readonly data: { namespace: string[]; key: string; deleted_at: string };
    }
  | {
      readonly type: 'StoreItemTtlRefreshed';
      /** A read pushed the item's expiry back to `expires_at`. */
      readonly data: { namespace: string[]; key: string; expires_at: string };
    }
  | {
      readonly type: 'StoreItemExpired';
      /**
       * Removed by the sweeper: its expiry `expires_at` passed. An item written or refreshed since
       * has another expiry and stays.
       */
      readonly data: { namespace: string[]; key: string; expires_at: string; expired_at: string };
    };

export const STORE_EVENT_TYPES: ReadonlySet<string> = new Set([
  'StoreItemPut',
  'StoreItemDeleted',
  'StoreItemTtlRefreshed',
  'StoreItemExpired',
]);
