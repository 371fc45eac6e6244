import type { DataSource, EntityManager } from 'typeorm';
import { ITEM_COLUMNS, ITEM_ORDER, type ItemRecord } from './store-item-record.js';

/** How pgvector ranks: through its HNSW index (approximate), or by an exact scan. */
export interface PgvectorSearch {
  readonly kind: 'pgvector';
  readonly hnsw: boolean;
  /** `store.index.fields`: how many vectors an item usually has. */
  readonly vectorsPerItem: number;
}

export interface PgvectorQuery {
  /** Conditions on `store_items`, with their parameters (`$1` is the instant of the read). */
  readonly where: readonly string[];
  readonly params: readonly unknown[];
  /** A unit vector. */
  readonly queryVector: readonly number[];
  readonly limit: number;
  readonly offset: number;
}

/** pgvector's default and largest HNSW candidate lists (`hnsw.ef_search`). */
const EF_SEARCH_DEFAULT = 40;
const EF_SEARCH_MAX = 1000;

type RankedRecord = ItemRecord & { candidates: string };

/**
 * A page of items by cosine similarity to the query. The nearest vectors come from the HNSW
 * index in distance order, filtered as they come (pgvector's iterative scan), each item ranked
 * by its best vector; as many are asked for as the page needs, twice as many again while items
 * with several vectors leave it short. Once the matching vectors run out, the items without any
 * follow, newest first and without a score, as on the exact scan.
 */
export function rankWithPgvector(
  dataSource: DataSource,
  search: PgvectorSearch,
  query: PgvectorQuery,
): Promise<ItemRecord[]> {
  return dataSource.transaction(async (manager) => {
    const wanted = query.offset + query.limit;
    let candidates = Math.max(1, wanted * search.vectorsPerItem);
    if (search.hnsw) {
      const efSearch = Math.min(EF_SEARCH_MAX, Math.max(EF_SEARCH_DEFAULT, candidates));
      await manager.query(
        `select set_config('hnsw.iterative_scan', 'relaxed_order', true),
                set_config('hnsw.ef_search', $1, true)`,
        [String(efSearch)],
      );
    }
    for (;;) {
      const ranked = await nearestItems(manager, query, candidates);
      const exhausted = Number(ranked[0]?.candidates ?? 0) < candidates;
      if (ranked.length >= wanted || exhausted) {
        const page: ItemRecord[] = ranked.slice(query.offset, wanted).map(withoutCount);
        if (!exhausted || page.length === query.limit) return page;
        const skip = Math.max(0, query.offset - ranked.length);
        return [...page, ...(await unranked(manager, query, query.limit - page.length, skip))];
      }
      candidates *= 2;
    }
  });
}

function withoutCount({ candidates: _candidates, ...record }: RankedRecord): ItemRecord {
  return record;
}

/** The items of the `candidates` nearest vectors, best first; each row says how many came. */
function nearestItems(
  manager: EntityManager,
  query: PgvectorQuery,
  candidates: number,
): Promise<RankedRecord[]> {
  const params = [...query.params, `[${query.queryVector.join(',')}]`, candidates];
  return manager.query(nearestItemsSql(query.where, params.length - 1, params.length), params);
}

/** The ranking query: `$<vectorParam>` is the query vector (pgvector's text), then the candidates. */
export function nearestItemsSql(
  where: readonly string[],
  vectorParam: number,
  candidatesParam: number,
): string {
  return `select ${ITEM_COLUMNS}, score, candidates from (
       select distinct on (item_id) ${ITEM_COLUMNS}, namespace_path, 1 - distance as score,
              count(*) over () as candidates
         from (
           select item_id, ${ITEM_COLUMNS}, namespace_path,
                  v.pgv <=> $${vectorParam}::vector as distance
             from store_item_vectors v join store_items using (item_id)
            where ${where.join(' and ')}
            order by distance
            limit $${candidatesParam}
         ) as nearest
        order by item_id, distance
     ) as best
     order by score desc, ${ITEM_ORDER}`;
}

function unranked(
  manager: EntityManager,
  query: PgvectorQuery,
  limit: number,
  offset: number,
): Promise<ItemRecord[]> {
  const params = [...query.params, limit, offset];
  return manager.query(
    `select ${ITEM_COLUMNS}, null as score from store_items
      where ${query.where.join(' and ')}
        and not exists (select from store_item_vectors v where v.item_id = store_items.item_id)
      order by ${ITEM_ORDER} limit $${params.length - 1} offset $${params.length}`,
    params,
  );
}
