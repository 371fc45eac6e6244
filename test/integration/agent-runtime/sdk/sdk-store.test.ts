import { describe, expect, it } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { queryRows } from '../../../support/database-query.js';
import { everyMethodCovered } from '../../../support/sdk-coverage.js';
import { apiRequest, runtimeSuite } from '../../../support/runtime-suite.js';
import { within } from '../../../support/within.js';

const MEMORY_APP = resolve('test/fixtures/compat-app/memory-app.json');

type Recall = { recalled?: string[] };

/** Every method of the official SDK's `client.store`, the store inside graphs, TTL and auth. */
describe('client.store: every method of the official SDK, and the store inside graphs', () => {
  const suite = runtimeSuite('sdk_store', { maxRetries: 0 }, { graphConfig: MEMORY_APP });
  const store = everyMethodCovered(() => suite.client.store);

  const query = <Row extends Record<string, unknown>>(sql: string, values: unknown[]) =>
    queryRows<Row>(suite.database.url, sql, values);

  const raw = apiRequest(suite);

  it('puts, gets, searches with filters and pages, lists namespaces and deletes', async () => {
    const id = randomUUID();
    const ns = ['docs', id];
    await store().putItem(ns, 'a', { kind: 'note', rank: 1, text: 'alpha' }, { index: false });
    await store().putItem(ns, 'b', { kind: 'note', rank: 5, text: 'beta' }, { ttl: 60 });
    await store().putItem([...ns, 'sub'], 'c', { kind: 'todo', rank: 9, text: 'gamma' });

    const a = await store().getItem(ns, 'a', { refreshTtl: false });
    expect(a).toMatchObject({ namespace: ns, key: 'a', value: { kind: 'note', rank: 1 } });
    expect(a).toHaveProperty('created_at', a?.createdAt);
    expect(await store().getItem(ns, 'missing')).toBeNull();

    const keys = async (options: Parameters<ReturnType<typeof store>['searchItems']>[1]) =>
      (await store().searchItems(ns, options)).items.map((item) => item.key).sort();
    expect(await keys({})).toEqual(['a', 'b', 'c']);
    expect(await keys({ filter: { kind: 'note' } })).toEqual(['a', 'b']);
    expect(await keys({ filter: { rank: { $gt: 1, $lte: 9 } } })).toEqual(['b', 'c']);
    expect(await keys({ filter: { kind: { $ne: 'note' } } })).toEqual(['c']);
    expect(await keys({ filter: { kind: { $in: ['todo'] } } })).toEqual(['c']);
    expect(await keys({ filter: { text: { $nin: ['alpha', 'beta'] } } })).toEqual(['c']);
    expect(await keys({ filter: { rank: { $gte: 5 } }, refreshTtl: true })).toEqual(['b', 'c']);
    const firstPage = await keys({ limit: 2, offset: 0 });
    const secondPage = await keys({ limit: 2, offset: 2 });
    expect(firstPage).toHaveLength(2);
    expect([...firstPage, ...secondPage].sort()).toEqual(['a', 'b', 'c']);

    const { namespaces } = await store().listNamespaces({ prefix: ['docs', id] });
    expect(namespaces).toEqual([ns, [...ns, 'sub']]);
    expect((await store().listNamespaces({ prefix: ns, maxDepth: 2 })).namespaces).toEqual([ns]);
    expect(
      (
        await store().listNamespaces({
          prefix: ['docs', '*'],
          suffix: ['sub'],
          limit: 100,
          offset: 0,
        })
      ).namespaces,
    ).toContainEqual([...ns, 'sub']);

    await store().deleteItem(ns, 'a');
    expect(await store().getItem(ns, 'a')).toBeNull();
    expect(await keys({})).toEqual(['b', 'c']);
  });

  it('ranks by meaning with the offline embedding, with a score on each item', async () => {
    const ns = ['facts', randomUUID()];
    await store().putItem(ns, 'pets', { text: 'my dog is called rex and likes long walks' });
    await store().putItem(ns, 'food', { text: 'pizza with olives is the best dinner' });
    await store().putItem(ns, 'job', { text: 'works as a nurse on night shifts' });
    await store().putItem(ns, 'plain', { text: 'dog walks rex' }, { index: false });

    const { items } = await store().searchItems(ns, { query: 'what is the dog called', limit: 4 });
    expect(items[0]?.key).toBe('pets');
    expect(items[0]?.score).toBeGreaterThan(items[1]?.score ?? 1);
    // Not embedded: listed after the ranked items, without a score.
    expect(items.at(-1)).toMatchObject({ key: 'plain', score: null });
  });

  it('a graph remembers on one thread and recalls on another; REST sees the memory', async () => {
    const user = `user-${randomUUID()}`;
    const config = { configurable: { user_id: user } };
    const first = await suite.client.threads.create();
    await suite.client.runs.wait(first.thread_id, 'memory', {
      input: { fact: 'my favourite colour is green' },
      config,
    });
    await suite.client.runs.wait(first.thread_id, 'memory', {
      input: { fact: 'i live in a small flat in Oslo' },
      config,
    });
    const second = await suite.client.threads.create();
    const recalled = (await suite.client.runs.wait(second.thread_id, 'memory', {
      input: { question: 'which colour is my favourite' },
      config,
    })) as Recall;
    expect(recalled.recalled?.[0]).toBe('my favourite colour is green');

    const { items } = await store().searchItems(['memories', user]);
    expect(items.map((item) => String(item.value['text'])).sort()).toEqual([
      'i live in a small flat in Oslo',
      'my favourite colour is green',
    ]);
  });

  it('a graph batch puts in one append and reads its own earlier writes', async () => {
    const user = randomUUID();
    const out = (await suite.client.runs.wait(null, 'batch', {
      input: {},
      config: { configurable: { user_id: user } },
    })) as Recall;
    expect(out.recalled).toEqual(['first', 'b', 'c']);
    const rows = await query<{ transaction_id: string; event_type: string }>(
      'select transaction_id::text, event_type from es_events where stream_id = $1',
      [`store-batch.${user}`],
    );
    expect(rows.map((row) => row.event_type)).toEqual([
      'StoreItemPut',
      'StoreItemPut',
      'StoreItemPut',
    ]);
    expect(new Set(rows.map((row) => row.transaction_id)).size).toBe(1);
  });

  it('expires items past their TTL at once, and the sweeper deletes them with an event', async () => {
    const ns = ['ttl', randomUUID()];
    // 0.02 minutes: 1.2 s.
    await store().putItem(ns, 'short', { text: 'brief' }, { ttl: 0.02 });
    await store().putItem(ns, 'kept', { text: 'lasting' });
    expect(await store().getItem(ns, 'short', { refreshTtl: false })).not.toBeNull();
    const expired = async (): Promise<void> => {
      while ((await store().getItem(ns, 'short', { refreshTtl: false })) !== null) {
        await new Promise((done) => setTimeout(done, 100));
      }
    };
    await within(expired(), 10_000, 'the item expired');
    const swept = async (): Promise<string[]> => {
      for (;;) {
        const rows = await query<{ event_type: string }>(
          'select event_type from es_events where stream_id = $1 order by stream_position',
          [`store-${ns.join('.')}`],
        );
        const types = rows.map((row) => row.event_type);
        if (types.includes('StoreItemExpired')) return types;
        await new Promise((done) => setTimeout(done, 200));
      }
    };
    expect(await within(swept(), 15_000, 'the sweeper expired the item')).toEqual([
      'StoreItemPut',
      'StoreItemPut',
      'StoreItemExpired',
    ]);
    expect(await store().getItem(ns, 'kept')).toMatchObject({ value: { text: 'lasting' } });
  });

  it('a read pushes back the expiry of an item with a TTL, unless asked not to', async () => {
    const ns = ['refresh', randomUUID()];
    await store().putItem(ns, 'timed', { text: 'timed' }, { ttl: 60 });
    await store().putItem(ns, 'forever', { text: 'forever' });
    const eventTypes = async (): Promise<string[]> =>
      (
        await query<{ event_type: string }>(
          'select event_type from es_events where stream_id = $1 order by stream_position',
          [`store-${ns.join('.')}`],
        )
      ).map((row) => row.event_type);
    await store().getItem(ns, 'timed', { refreshTtl: false });
    await store().searchItems(ns, { refreshTtl: false });
    expect(await eventTypes()).toEqual(['StoreItemPut', 'StoreItemPut']);
    // The application's store.ttl.refresh_on_read is true: a plain read refreshes.
    await store().getItem(ns, 'timed');
    await store().searchItems(ns, { refreshTtl: true });
    expect(await eventTypes()).toEqual([
      'StoreItemPut',
      'StoreItemPut',
      'StoreItemTtlRefreshed',
      'StoreItemTtlRefreshed',
    ]);
  });

  it('refuses bad namespaces, filters and sizes with a 4xx and a detail, storing nothing', async () => {
    const ns = ['bad', randomUUID()];
    const cases: [string, string, unknown, number][] = [
      ['PUT', '/store/items', { namespace: ['a.b'], key: 'k', value: {} }, 422],
      ['PUT', '/store/items', { namespace: ['ok', ''], key: 'k', value: {} }, 422],
      ['PUT', '/store/items', { namespace: [], key: 'k', value: {} }, 422],
      ['PUT', '/store/items', { namespace: ns, key: 'k', value: 'text' }, 422],
      ['PUT', '/store/items', { namespace: ns, key: 'k', value: {}, ttl: -1 }, 422],
      ['PUT', '/store/items', { namespace: ns, key: 'k', value: {}, index: 'text' }, 422],
      ['PUT', '/store/items', { namespace: [1, 2], key: 'k', value: {} }, 422],
      [
        'PUT',
        '/store/items',
        { namespace: ns, key: 'k', value: { blob: 'x'.repeat(5 << 20) } },
        413,
      ],
      [
        'POST',
        '/store/items/search',
        { namespace_prefix: ns, filter: { a: { $regex: 'x' } } },
        422,
      ],
      ['POST', '/store/items/search', { namespace_prefix: ns, filter: { a: { $gt: [1] } } }, 422],
      ['POST', '/store/items/search', { namespace_prefix: ['x.y'] }, 422],
      ['POST', '/store/items/search', { namespace_prefix: ns, limit: 0 }, 422],
      ['POST', '/store/namespaces', { prefix: ['a.b'] }, 422],
      ['POST', '/store/namespaces', { max_depth: 0 }, 422],
      ['DELETE', '/store/items', { namespace: ['a.b'], key: 'k' }, 422],
      ['GET', '/store/items?namespace=a..b&key=k', undefined, 422],
    ];
    for (const [method, path, body, status] of cases) {
      const response = await raw(method, path, body);
      const shown = body === undefined ? '' : JSON.stringify(body).slice(0, 80);
      expect({ path, shown, status: response.status }).toEqual({ path, shown, status });
      expect(await response.json()).toHaveProperty('detail');
    }
    expect((await store().searchItems(ns)).items).toEqual([]);
    const stored = await query('select 1 from es_events where stream_id like $1', ['store-a.b%']);
    expect(stored).toEqual([]);
  });

  it("an application's auth handler keeps each user's memories apart", async () => {
    const as = (user: string): Client =>
      new Client({
        apiUrl: suite.runtime.url,
        apiKey: null,
        defaultHeaders: { authorization: `Bearer user-${user}` },
      });
    const alice = as(`alice${randomUUID().slice(0, 8)}`);
    const bob = as(`bob${randomUUID().slice(0, 8)}`);
    await alice.store.putItem(['notes'], 'secret', { text: 'alice only' });
    expect(await alice.store.getItem(['notes'], 'secret')).toMatchObject({
      value: { text: 'alice only' },
    });
    expect(await bob.store.getItem(['notes'], 'secret')).toBeNull();
    expect((await bob.store.searchItems(['notes'])).items).toEqual([]);
    expect((await alice.store.searchItems(['notes'])).items).toHaveLength(1);
    await bob.store.deleteItem(['notes'], 'secret');
    expect(await alice.store.getItem(['notes'], 'secret')).not.toBeNull();
    const aliceNamespaces = (await alice.store.listNamespaces()).namespaces;
    expect(aliceNamespaces.every((namespace) => namespace[0]?.startsWith('alice'))).toBe(true);
    expect(aliceNamespaces).toHaveLength(1);
  });
});
