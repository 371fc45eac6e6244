import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { resolve } from 'node:path';
import { LIVE } from '../../../apps/agent-runtime/src/store/store-item-record.js';
import { nearestItemsSql } from '../../../apps/agent-runtime/src/store/store-pgvector-ranking.js';
import { embed } from '../../fixtures/compat-app/src/embed.js';
import { queryRows } from '../../support/database-query.js';
import { startPgliteServer, type PgliteServer } from '../../support/pglite-server.js';
import { startRuntime, type RuntimeProcess } from '../../support/runtime-process.js';

/** `store.index`: the fixture's offline embedding (64 dimensions), on `text`. */
const MEMORY_APP = resolve('test/fixtures/compat-app/memory-app.json');
/** Enough items that the planner prefers walking the HNSW index to scanning. */
const MANY = 400;
const WORDS = ['river', 'mountain', 'coffee', 'garden', 'piano', 'winter', 'harbour', 'letter'];

const FACTS: Record<string, { text: string; kind: string }> = {
  rex: { text: 'my dog is called rex and likes long walks', kind: 'pet' },
  tom: { text: 'the cat tom sleeps all day on the sofa', kind: 'pet' },
  pizza: { text: 'pizza with olives is the best dinner', kind: 'food' },
  nurse: { text: 'works as a nurse on night shifts', kind: 'job' },
  walks: { text: 'long walks by the river with the dog every morning', kind: 'habit' },
};

async function cosine(a: string, b: string): Promise<number> {
  const [x = [], y = []] = await embed([a, b]);
  const dot = x.reduce((sum, value, i) => sum + value * (y[i] ?? 0), 0);
  const norm = (v: number[]): number => Math.sqrt(v.reduce((sum, value) => sum + value * value, 0));
  return dot / (norm(x) * norm(y));
}

/** The facts by cosine similarity of their text to the query, best first. */
async function expectedRanking(
  query: string,
  keys: readonly string[],
): Promise<{ key: string; score: number }[]> {
  const scored = await Promise.all(
    keys.map(async (key) => ({ key, score: await cosine(query, FACTS[key]?.text ?? '') })),
  );
  return scored.sort((a, b) => b.score - a.score);
}

describe("the store's semantic search on pgvector (PGlite with pgvector, over the wire protocol)", () => {
  let pglite: PgliteServer;
  let runtime: RuntimeProcess;
  let client: Client;
  const sql = <Row extends Record<string, unknown>>(text: string, values: unknown[] = []) =>
    queryRows<Row>(pglite.url, text, values);

  beforeAll(async () => {
    pglite = await startPgliteServer();
    runtime = await startRuntime({ databaseUrl: pglite.url, graphConfig: MEMORY_APP });
    client = new Client({
      apiUrl: runtime.url,
      apiKey: runtime.apiKey,
      callerOptions: { maxRetries: 0 },
    });
    const ns = ['pgv', 'facts'];
    for (const [key, value] of Object.entries(FACTS)) await client.store.putItem(ns, key, value);
    // Embedded by its title only, then not at all.
    await client.store.putItem(
      ns,
      'titled',
      { title: 'coffee', text: 'my dog is called rex' },
      { index: ['title'] },
    );
    await client.store.putItem(ns, 'plain', { text: 'what is the dog called' }, { index: false });
  }, 180_000);

  afterAll(async () => {
    await runtime.stop();
    await pglite.stop();
  });

  it('mirrors the embeddings into a vector column with an HNSW index on cosine distance', async () => {
    expect(runtime.output()).toContain(
      'Semantic search uses the pgvector extension, with an HNSW index',
    );
    const indexes = await sql<{ indexdef: string }>(
      `select indexdef from pg_indexes where tablename = 'store_item_vectors'`,
    );
    expect(indexes.map((index) => index.indexdef)).toContainEqual(
      expect.stringContaining('USING hnsw (pgv vector_cosine_ops)'),
    );
    const [column] = await sql<{ type: string }>(
      `select format_type(atttypid, atttypmod) as type from pg_attribute
        where attrelid = 'store_item_vectors'::regclass and attname = 'pgv'`,
    );
    expect(column?.type).toBe('vector(64)');
  });

  it('ranks by cosine similarity with scores, unembedded items last without one', async () => {
    const query = 'what is the dog called';
    const { items } = await client.store.searchItems(['pgv', 'facts'], { query, limit: 10 });
    const expected = await expectedRanking(query, Object.keys(FACTS));
    const ranked = items.filter((item) => item.key !== 'titled' && item.key !== 'plain');
    expect(ranked.map((item) => item.key)).toEqual(expected.map((fact) => fact.key));
    ranked.forEach((item, i) => {
      expect(item.score).toBeCloseTo(expected[i]?.score ?? Number.NaN, 5);
    });
    // `titled` is embedded by "coffee" alone: no word in common with the query.
    expect(items.find((item) => item.key === 'titled')?.score).toBeCloseTo(0, 5);
    expect(items.at(-1)).toMatchObject({ key: 'plain', score: null });
    expect(items).toHaveLength(7);
  });

  it('combines a filter with the query', async () => {
    const query = 'the dog walks by the river';
    const { items } = await client.store.searchItems(['pgv', 'facts'], {
      query,
      filter: { kind: 'pet' },
      limit: 10,
    });
    const expected = await expectedRanking(query, ['rex', 'tom']);
    expect(items.map((item) => [item.key, item.score])).toEqual(
      expected.map((fact) => [fact.key, expect.closeTo(fact.score, 5)]),
    );
  });

  it('pages through the ranking, into the unembedded items', async () => {
    const query = 'long walks with the dog';
    const search = (limit: number, offset: number) =>
      client.store.searchItems(['pgv', 'facts'], { query, limit, offset });
    const all = (await search(10, 0)).items.map((item) => item.key);
    const pages = [];
    for (let offset = 0; offset < all.length; offset += 2) {
      pages.push(...(await search(2, offset)).items.map((item) => item.key));
    }
    expect(pages).toEqual(all);
    expect((await search(2, 6)).items.map((item) => item.key)).toEqual(['plain']);
  });

  it('walks the HNSW index for a query over many items (EXPLAIN, and the index scan count)', async () => {
    const ns = ['pgv', 'many'];
    const texts = Array.from(
      { length: MANY },
      (_, i) => `note ${i}: ${WORDS[i % 8]} ${WORDS[(i * 7) % 8]} ${WORDS[(i * 3) % 8]}`,
    );
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < MANY; i = next++) {
          await client.store.putItem(ns, `item-${i}`, { text: texts[i], kind: i % 10 });
        }
      }),
    );
    // What autovacuum does on a PostgreSQL server (PGlite has none): the planner learns that
    // the namespace holds every vector, and that walking the index in order pays.
    await sql('analyze store_items, store_item_vectors');
    const scans = async (): Promise<number> => {
      await sql('select pg_stat_force_next_flush()');
      const [row] = await sql<{ scans: string }>(
        `select idx_scan as scans from pg_stat_user_indexes
          where indexrelname = 'store_item_vectors_nearest'`,
      );
      return Number(row?.scans ?? 0);
    };
    const before = await scans();

    // Without a filter the page comes off the index; with a selective one the planner may as
    // well take the items by the filter's GIN index and rank them exactly: right either way.
    const { items } = await client.store.searchItems(ns, {
      query: 'coffee by the river',
      limit: 5,
    });
    expect(items).toHaveLength(5);
    const scores = items.map((item) => item.score ?? Number.NaN);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // HNSW is approximate: the first found is (nearly) the best there is.
    const best = Math.max(
      ...(await Promise.all(texts.map((text) => cosine('coffee by the river', text)))),
    );
    expect(scores[0]).toBeGreaterThan(0.95 * best);
    const filtered = await client.store.searchItems(ns, {
      query: 'coffee by the river',
      filter: { kind: 3 },
      limit: 5,
    });
    expect(filtered.items.map((item) => item.value['kind'] as unknown)).toEqual([3, 3, 3, 3, 3]);
    // The statistics reach the view once the session flushes them: asked to, at its next idle.
    const deadline = Date.now() + 10_000;
    let after = await scans();
    while (after <= before && Date.now() < deadline) after = await scans();
    expect(after).toBeGreaterThan(before);

    const [query] = await embed(['coffee by the river']);
    const where = [LIVE, '(namespace_path = $2 or (namespace_path >= $3 and namespace_path < $4))'];
    const plan = await sql<{ 'QUERY PLAN': string }>(`explain ${nearestItemsSql(where, 5, 6)}`, [
      new Date(),
      'pgv.many',
      'pgv.many.',
      'pgv.many/',
      `[${query?.join(',')}]`,
      10,
    ]);
    expect(plan.map((line) => line['QUERY PLAN']).join('\n')).toMatch(
      /Index Scan using store_item_vectors_nearest on store_item_vectors/,
    );
  }, 180_000);
});
