import type { DataSource } from 'typeorm';
import { refuseEncryptedFilter } from '../common/json-keys-column.js';
import { compileStoreFilter } from './store-filter.js';
import {
  ITEM_COLUMNS,
  ITEM_ORDER,
  LIVE,
  toItem,
  type ItemRecord,
  type StoreItemFound,
} from './store-item-record.js';
import { namespacePath } from './store-namespace.js';
import { rankWithPgvector } from './store-pgvector-ranking.js';
import type { VectorSearch } from './store-vector-search.js';

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

/** Reads of the store's read model; expired items are never returned, swept or not. */
export class StoreReads {
  constructor(
    private readonly dataSource: DataSource,
    private readonly vectorSearch: () => VectorSearch,
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
    refuseEncryptedFilter(search.filter);
    const filter = compileStoreFilter(search.filter, params.length + 1);
    where.push(...filter.conditions);
    params.push(...filter.params);
    if (search.queryVector) return this.rank(where, params, search, search.queryVector);
    params.push(search.limit, search.offset);
    const rows: ItemRecord[] = await this.dataSource.query(
      `select ${ITEM_COLUMNS} from store_items where ${where.join(' and ')}
        order by ${ITEM_ORDER} limit $${params.length - 1} offset $${params.length}`,
      params,
    );
    return rows.map((row) => toItem(row, false));
  }

  private async rank(
    where: string[],
    params: unknown[],
    search: StoreSearch,
    queryVector: readonly number[],
  ): Promise<StoreItemFound[]> {
    const vectorSearch = this.vectorSearch();
    const { limit, offset } = search;
    if (vectorSearch.kind === 'pgvector') {
      const rows = await rankWithPgvector(this.dataSource, vectorSearch, {
        where,
        params,
        queryVector,
        limit,
        offset,
      });
      return rows.map((row) => toItem(row, true));
    }
    params.push(`{${queryVector.join(',')}}`, limit, offset);
    const rows: ItemRecord[] = await this.dataSource.query(
      `select ${ITEM_COLUMNS}, store_best_dot(embeddings, $${params.length - 2}::real[]) as score
         from store_items where ${where.join(' and ')}
        order by score desc nulls last, ${ITEM_ORDER}
        limit $${params.length - 1} offset $${params.length}`,
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
}
