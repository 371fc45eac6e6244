import type { DataSource } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import { compileStoreFilter } from './store-filter.js';
import { namespacePath } from './store-namespace.js';

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

export interface StoreSearch {
  readonly namespacePrefix: readonly string[];
  readonly filter?: Record<string, unknown>;
  readonly limit: number;
  readonly offset: number;
  /** The query's unit embedding: rank by similarity. */
  readonly queryVector?: readonly number[];
}

/** A namespace condition: labels in order, `*` matching any one label. */
export interface NamespaceMatch {
  readonly prefix?: readonly string[];
  readonly suffix?: readonly string[];
  readonly maxDepth?: number;
  readonly limit: number;
  readonly offset: number;
}

interface ItemRecord {
  namespace: string[];
  key: string;
  value: JsonObject;
  created_at: Date;
  updated_at: Date;
  ttl_minutes: number | null;
  expires_at: Date | null;
  score?: number | null;
}

const ITEM_COLUMNS = 'namespace, key, value, created_at, updated_at, ttl_minutes, expires_at';
const LIVE = '(expires_at is null or expires_at > $1)';

function toItem(record: ItemRecord, withScore: boolean): StoreItemFound {
  return {
    namespace: record.namespace,
    key: record.key,
    value: record.value,
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
    ...(withScore ? { score: record.score === null ? null : Number(record.score) } : {}),
    ttlMinutes: record.ttl_minutes,
    expiresAt: record.expires_at?.toISOString() ?? null,
  };
}

/** How similarity is computed: pgvector's operator where the server has it, an exact scan in SQL otherwise. */
export type VectorSearchKind = 'pgvector' | 'exact-sql';

/** Reads of the store's read model; expired items are never returned, swept or not. */
export class StoreReads {
  constructor(
    private readonly dataSource: DataSource,
    private readonly vectorSearch: () => VectorSearchKind,
  ) {}

  async get(namespace: readonly string[], key: string, now: Date): Promise<StoreItemFound | null> {
    const rows: ItemRecord[] = await this.dataSource.query(
      `select ${ITEM_COLUMNS} from store_items
        where namespace_path = $2 and key = $3 and ${LIVE}`,
      [now, namespacePath(namespace), key],
    );
    const [row] = rows;
    return row ? toItem(row, false) : null;
  }

  async search(search: StoreSearch, now: Date): Promise<StoreItemFound[]> {
    const params: unknown[] = [now];
    const where = [LIVE];
    if (search.namespacePrefix.length > 0) {
      const path = namespacePath(search.namespacePrefix);
      params.push(path, `${path}.`, `${path}/`);
      where.push('(namespace_path = $2 or (namespace_path >= $3 and namespace_path < $4))');
    }
    const filter = compileStoreFilter(search.filter, params.length + 1);
    where.push(...filter.conditions);
    params.push(...filter.params);
    params.push(search.limit, search.offset);
    const page = `limit $${params.length - 1} offset $${params.length}`;
    if (!search.queryVector) {
      const rows: ItemRecord[] = await this.dataSource.query(
        `select ${ITEM_COLUMNS} from store_items where ${where.join(' and ')}
          order by updated_at desc, namespace_path, key ${page}`,
        params,
      );
      return rows.map((row) => toItem(row, false));
    }
    params.push(this.vectorParam(search.queryVector));
    const query = `$${params.length}`;
    const score =
      this.vectorSearch() === 'pgvector'
        ? `(select max(1 - (v.pgv <=> ${query}::vector)) from store_item_vectors v
             where v.item_id = store_items.item_id)`
        : `store_best_dot(embeddings, ${query}::real[])`;
    const rows: ItemRecord[] = await this.dataSource.query(
      `select ${ITEM_COLUMNS}, ${score} as score from store_items
        where ${where.join(' and ')}
        order by score desc nulls last, updated_at desc, namespace_path, key ${page}`,
      params,
    );
    return rows.map((row) => toItem(row, true));
  }

  /** The distinct namespaces (cut to `maxDepth` labels) that hold live items, in order. */
  async namespaces(match: NamespaceMatch, now: Date): Promise<string[][]> {
    const params: unknown[] = [now];
    const where = [LIVE];
    const label = (value: string): string => {
      params.push(value);
      return `$${params.length}`;
    };
    if (match.prefix?.length) {
      where.push(`cardinality(namespace) >= ${match.prefix.length}`);
      match.prefix.forEach((part, i) => {
        if (part !== '*') where.push(`namespace[${i + 1}] = ${label(part)}`);
      });
    }
    if (match.suffix?.length) {
      const length = match.suffix.length;
      where.push(`cardinality(namespace) >= ${length}`);
      match.suffix.forEach((part, i) => {
        if (part !== '*') {
          where.push(`namespace[cardinality(namespace) - ${length - 1 - i}] = ${label(part)}`);
        }
      });
    }
    const depth = match.maxDepth === undefined ? 'namespace' : `namespace[1:${match.maxDepth}]`;
    params.push(match.limit, match.offset);
    const rows: { namespace: string[] }[] = await this.dataSource.query(
      `select distinct ${depth} as namespace from store_items where ${where.join(' and ')}
        order by 1 limit $${params.length - 1} offset $${params.length}`,
      params,
    );
    return rows.map((row) => row.namespace);
  }

  /** Items whose expiry has passed, for the sweeper. */
  async expired(
    now: Date,
    limit: number,
  ): Promise<{ namespace: string[]; key: string; expiresAt: string }[]> {
    const rows: { namespace: string[]; key: string; expires_at: Date }[] =
      await this.dataSource.query(
        `select namespace, key, expires_at from store_items
          where expires_at <= $1 order by expires_at limit $2`,
        [now, limit],
      );
    return rows.map((row) => ({ ...row, expiresAt: row.expires_at.toISOString() }));
  }

  private vectorParam(vector: readonly number[]): string {
    return this.vectorSearch() === 'pgvector' ? `[${vector.join(',')}]` : `{${vector.join(',')}}`;
  }
}
