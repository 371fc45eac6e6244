import { InMemoryStore } from '@langchain/langgraph-checkpoint';
import { resolve } from 'node:path';
import { queryRows } from '../support/database-query.js';
import { startPgliteServer, type PgliteServer } from '../support/pglite-server.js';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.js';
import { millis, openBenchDatabase, percentile, ratio, type Row } from './bench-support.js';
import { DIMS, embed } from '../fixtures/compat-app/src/embed.js';

/** Serves the store with `store.index` (the offline embedding of the test fixtures). */
const MEMORY_APP = resolve('test/fixtures/compat-app/memory-app.json');
const FILTER_ITEMS = 1_000;
const SEMANTIC_ITEMS = 10_000;
const SEED_CONCURRENCY = 8;
const WORDS = ['river', 'mountain', 'coffee', 'garden', 'piano', 'winter', 'harbour', 'letter'];

export interface StoreTarget {
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface StoreBenchResult {
  readonly rows: Row[];
  readonly putP50: [number, number];
  readonly searchP50: [number, number];
  readonly semanticP50: [number, number];
  /** pgvector (HNSW) on PGlite against the same InMemoryStore. */
  readonly pgvectorP50: [number, number];
  /** How many times the HNSW index was walked, over as many queries as `iterations`. */
  readonly pgvectorIndexScans: number;
  readonly vectorSearch: string;
}

async function hnswScans(url: string): Promise<number> {
  await queryRows(url, 'select pg_stat_force_next_flush()');
  const [row] = await queryRows<{ scans: string }>(
    url,
    `select idx_scan as scans from pg_stat_user_indexes
      where indexrelname = 'store_item_vectors_nearest'`,
  );
  return Number(row?.scans ?? 0);
}

function sentence(i: number): string {
  return `note ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`;
}

async function call(
  target: StoreTarget,
  method: string,
  path: string,
  body: unknown,
): Promise<unknown> {
  const response = await fetch(`${target.url}${path}`, {
    method,
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    throw new Error(
      `${target.name} ${method} ${path}: ${response.status} ${await response.text()}`,
    );
  }
  return response.status === 204 ? null : response.json();
}

async function timed(operation: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await operation();
  return performance.now() - started;
}

const put = (target: StoreTarget, namespace: string[], i: number): Promise<unknown> =>
  call(target, 'PUT', '/store/items', {
    namespace,
    key: `item-${i}`,
    value: { kind: i % 10, text: sentence(i) },
  });

/** Puts `count` items, `SEED_CONCURRENCY` at a time. */
async function seed(target: StoreTarget, namespace: string[], count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) await put(target, namespace, i);
    }),
  );
}

/**
 * The store's figures: puts and filtered searches over 1,000 items against the reference
 * server's store (in memory, through its HTTP API), and semantic queries over 10,000 embedded
 * items against LangGraph's `InMemoryStore` with the same embedding, in this process (the
 * reference server has no `store.index`, so its HTTP API cannot rank by meaning). The semantic
 * queries run twice on Berth: on the benchmark's PostgreSQL (pgvector where it has it), and on
 * PGlite with pgvector over the wire protocol (test/support/pglite-server.ts), by its HNSW index.
 */
export async function storeBench(
  reference: StoreTarget,
  iterations: number,
): Promise<StoreBenchResult> {
  const database = await openBenchDatabase('store');
  let runtime: RuntimeProcess | undefined;
  let pglite: PgliteServer | undefined;
  let pgvectorRuntime: RuntimeProcess | undefined;
  try {
    runtime = await startRuntime({ databaseUrl: database.url, graphConfig: MEMORY_APP });
    pglite = await startPgliteServer();
    pgvectorRuntime = await startRuntime({ databaseUrl: pglite.url, graphConfig: MEMORY_APP });
    const pgvector: StoreTarget = {
      name: 'berth on PGlite with pgvector',
      url: pgvectorRuntime.url,
      headers: { 'x-api-key': pgvectorRuntime.apiKey },
    };
    if (!pgvectorRuntime.output().includes('pgvector extension, with an HNSW index')) {
      throw new Error(
        `The runtime on PGlite does not use pgvector's HNSW index:\n${pgvectorRuntime.output()}`,
      );
    }
    const berth: StoreTarget = {
      name: 'berth',
      url: runtime.url,
      headers: { 'x-api-key': runtime.apiKey },
    };
    const vectorSearch = runtime.output().includes('Semantic search uses the pgvector extension')
      ? 'pgvector'
      : 'exact scan in SQL (no pgvector on this server)';

    const puts: [number[], number[]] = [[], []];
    const namespace = ['bench', 'filter'];
    for (let i = 0; i < FILTER_ITEMS; i += 1) {
      puts[0].push(await timed(() => put(berth, namespace, i)));
      puts[1].push(await timed(() => put(reference, namespace, i)));
    }
    const searches: [number[], number[]] = [[], []];
    const search = (target: StoreTarget, i: number) => () =>
      call(target, 'POST', '/store/items/search', {
        namespace_prefix: namespace,
        filter: { kind: i % 10 },
        limit: 10,
      });
    for (let i = 0; i < iterations; i += 1) {
      searches[0].push(await timed(search(berth, i)));
      searches[1].push(await timed(search(reference, i)));
    }

    const semanticNamespace = ['bench', 'semantic'];
    await Promise.all([
      seed(berth, semanticNamespace, SEMANTIC_ITEMS),
      seed(pgvector, semanticNamespace, SEMANTIC_ITEMS),
    ]);
    // PGlite has no autovacuum: this is its ANALYZE, without which the planner, thinking the
    // tables empty, joins and sorts everything instead of walking the HNSW index.
    await queryRows(pglite.url, 'analyze store_items, store_item_vectors');
    const inMemory = new InMemoryStore({
      index: {
        dims: DIMS,
        fields: ['text'],
        embeddings: {
          embedDocuments: embed,
          embedQuery: async (text: string) => (await embed([text]))[0] ?? [],
        } as never,
      },
    });
    for (let i = 0; i < SEMANTIC_ITEMS; i += 1) {
      await inMemory.put(semanticNamespace, `item-${i}`, { kind: i % 10, text: sentence(i) });
    }
    const semantic: [number[], number[]] = [[], []];
    const pgvectorSemantic: [number[], number[]] = [[], []];
    const ask = (target: StoreTarget, query: string) => () =>
      call(target, 'POST', '/store/items/search', {
        namespace_prefix: semanticNamespace,
        query,
        limit: 10,
      });
    for (let i = 0; i < iterations; i += 1) {
      const query = `${WORDS[i % WORDS.length]} and ${WORDS[(i + 3) % WORDS.length]}`;
      semantic[0].push(await timed(ask(berth, query)));
      pgvectorSemantic[0].push(await timed(ask(pgvector, query)));
      const inMemoryTime = await timed(() =>
        inMemory.search(semanticNamespace, { query, limit: 10 }),
      );
      semantic[1].push(inMemoryTime);
      pgvectorSemantic[1].push(inMemoryTime);
    }

    const p50 = (samples: [number[], number[]]): [number, number] => [
      percentile(samples[0], 50),
      percentile(samples[1], 50),
    ];
    const row = (metric: string, [b, r]: [number, number]): Row => ({
      metric,
      berth: millis(b),
      peer: millis(r),
      ratio: ratio(r, b),
    });
    const result = {
      putP50: p50(puts),
      searchP50: p50(searches),
      semanticP50: p50(semantic),
      pgvectorP50: p50(pgvectorSemantic),
      pgvectorIndexScans: await hnswScans(pglite.url),
      vectorSearch,
    };
    return {
      ...result,
      rows: [
        row('PUT /store/items p50', result.putP50),
        row(`store search, ${FILTER_ITEMS} items, filter, p50`, result.searchP50),
        row(
          `store semantic query, ${SEMANTIC_ITEMS} items (${DIMS} dims; peer: InMemoryStore in-process), p50`,
          result.semanticP50,
        ),
        row(
          `store semantic query, ${SEMANTIC_ITEMS} items, pgvector HNSW on PGlite (peer: InMemoryStore in-process), p50`,
          result.pgvectorP50,
        ),
      ],
    };
  } finally {
    await runtime?.stop();
    await pgvectorRuntime?.stop();
    await pglite?.stop();
    await database.close();
  }
}
