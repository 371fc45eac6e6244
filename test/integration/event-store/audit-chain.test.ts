import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { formatHead, parseHead, PostgresEventStore, type ChainHead } from '#libs/event-store';
import { GENESIS_HASH, linkOf } from '../../../libs/event-store/src/audit/chain-hash.js';
import { take } from '../../../libs/event-store/src/testing/event-store.contract.js';
import { eventually } from '../control-plane/api-audit.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

interface Log {
  readonly store: PostgresEventStore;
  readonly pool: pg.Pool;
  /** The stored event ids, in log order: index 0 is chain position 1. */
  readonly ids: string[];
}

const opened: { database: TestDatabase; store: PostgresEventStore; pool: pg.Pool }[] = [];

afterEach(async () => {
  for (const { database, store, pool } of opened.splice(0)) {
    await store.close();
    await pool.end();
    await database.drop();
  }
});

/**
 * The pool a test edits the log through. Dropping the test's database ends its sessions: an idle
 * client the server ends then is no failure of the test.
 */
function tamperingPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined);
  return pool;
}

/** A log of six events, one append each, in streams a, b and c, sealed. */
async function sealedLog(): Promise<Log> {
  const database = await createTestDatabase('audit');
  const store = await PostgresEventStore.connect({
    connectionString: database.url,
    sealIntervalMs: 0,
  });
  const pool = tamperingPool(database.url);
  opened.push({ database, store, pool });
  const ids: string[] = [];
  for (let n = 1; n <= 6; n += 1) {
    const eventId = randomUUID();
    ids.push(eventId);
    await store.append(`stream-${'abc'[n % 3]}`, [
      { eventId, type: n % 2 ? 'Odd' : 'Even', data: { n, text: `event ${n}` } },
    ]);
  }
  await inLog(store, 6);
  expect(await store.audit().verify()).toMatchObject({ verified: true, events: 6 });
  return { store, pool, ids };
}

/**
 * Once the log's readers see `count` events. Like them, the sealer takes only events that nothing
 * still running on the server can precede, and other tests' transactions share this server.
 */
async function inLog(store: PostgresEventStore, count: number): Promise<void> {
  const subscription = store.subscribeToLog();
  try {
    await take(subscription, count);
  } finally {
    await subscription.close();
  }
}

function idAt(log: Log, position: number): string {
  const id = log.ids[position - 1];
  if (!id) throw new Error(`no event at position ${position}`);
  return id;
}

describe('the event log hash chain (PostgreSQL)', () => {
  it('verifies a fresh log, empty and then with events, and prints its head', async () => {
    const database = await createTestDatabase('audit');
    const store = await PostgresEventStore.connect({ connectionString: database.url });
    const pool = tamperingPool(database.url);
    opened.push({ database, store, pool });

    expect(await store.audit().verify()).toEqual({
      verified: true,
      events: 0,
      deleted: 0,
      head: { position: 0, hash: GENESIS_HASH },
      pending: 0,
    });
    await store.append('stream-a', [{ eventId: randomUUID(), type: 'A', data: { x: 1 } }]);
    await store.append('stream-b', [
      { eventId: randomUUID(), type: 'B', data: { y: 'two', nested: { z: [1, 2] } } },
      { eventId: randomUUID(), type: 'C', data: {}, metadata: { by: 'someone' } },
    ]);
    await inLog(store, 3);
    const result = await store.audit().verify();
    expect(result).toMatchObject({ verified: true, events: 3, head: { position: 3 } });
    if (!result.verified) throw new Error('not verified');
    const { rows } = await pool.query<{ position: string; hash: string }>(
      'select position, hash from es_chain order by position',
    );
    expect(rows.map((row) => Number(row.position))).toEqual([1, 2, 3]);
    expect(rows[2]?.hash).toBe(result.head.hash);
    const published = parseHead(formatHead(result.head));
    expect(await store.audit().verify(published)).toMatchObject({ verified: true, events: 3 });
  });

  it('seals an append by itself, off the append path, within its interval', async () => {
    const database = await createTestDatabase('audit');
    const store = await PostgresEventStore.connect({
      connectionString: database.url,
      sealIntervalMs: 20,
    });
    const pool = tamperingPool(database.url);
    opened.push({ database, store, pool });
    const eventId = randomUUID();
    await store.append('stream-a', [{ eventId, type: 'A', data: {} }]);
    await eventually('the append sealed', async () => {
      const { rows } = await pool.query<{ event_id: string }>('select event_id from es_chain');
      return rows[0]?.event_id === eventId ? true : undefined;
    });
  });

  it('finds an edited event at its position', async () => {
    const log = await sealedLog();
    await log.pool.query(
      `update es_events set data = '{"n": 3, "text": "forged"}' where event_id = $1`,
      [idAt(log, 3)],
    );
    expect(await log.store.audit().verify()).toMatchObject({
      verified: false,
      events: 2,
      break: { kind: 'edited', position: 3, eventId: idAt(log, 3) },
    });
  });

  it('finds a deleted event at its position', async () => {
    const log = await sealedLog();
    await log.pool.query('delete from es_events where event_id = $1', [idAt(log, 4)]);
    expect(await log.store.audit().verify()).toMatchObject({
      verified: false,
      events: 3,
      break: { kind: 'missing', position: 4 },
    });
  });

  it('finds two events whose data and types were swapped, at the first of them', async () => {
    const log = await sealedLog();
    await log.pool.query(
      `update es_events e set data = o.data, event_type = o.event_type
         from es_events o
        where (e.event_id, o.event_id) in (($1::uuid, $2::uuid), ($2::uuid, $1::uuid))`,
      [idAt(log, 2), idAt(log, 5)],
    );
    expect(await log.store.audit().verify()).toMatchObject({
      verified: false,
      events: 1,
      break: { kind: 'reordered', position: 2, detail: 'its content was sealed at position 5' },
    });
  });

  it('finds an event slipped in between two sealed ones', async () => {
    const log = await sealedLog();
    // The same transaction as position 2 and a later global position: it sorts right after it.
    await log.pool.query(
      `insert into es_events (transaction_id, stream_id, stream_position, event_id, event_type, data)
       select transaction_id, 'stream-z', 0, gen_random_uuid(), 'Forged', '{}'
         from es_events where event_id = $1`,
      [idAt(log, 2)],
    );
    expect(await log.store.audit().verify()).toMatchObject({
      verified: false,
      events: 2,
      break: { kind: 'inserted', position: 3 },
    });
  });

  it('still verifies after the store deleted a stream, and counts the deleted events', async () => {
    const log = await sealedLog();
    await log.store.deleteStream('stream-b');
    expect(await log.store.audit().verify()).toMatchObject({
      verified: true,
      events: 6,
      deleted: 2,
      head: { position: 6 },
    });
  });

  it("exports a stream's events with their chain positions, for a period", async () => {
    const log = await sealedLog();
    const all = await log.store.audit().exportStream('stream-a', {});
    const roundTripped = all.map((record) => JSON.parse(JSON.stringify(record)) as unknown);
    expect(roundTripped).toEqual(all);
    expect(all.map((record) => [record.position, record.event_id, record.data])).toEqual([
      [3, idAt(log, 3), { n: 3, text: 'event 3' }],
      [6, idAt(log, 6), { n: 6, text: 'event 6' }],
    ]);
    const { rows } = await log.pool.query<{ hash: string }>(
      'select hash from es_chain where position in (3, 6) order by position',
    );
    expect(all.map((record) => record.hash)).toEqual(rows.map((row) => row.hash));

    const sixth = all[1]?.recorded_at ?? '';
    const before = await log.store.audit().exportStream('stream-a', { until: new Date(sixth) });
    expect(before.map((record) => record.position)).toEqual([3]);
    const from = await log.store.audit().exportStream('stream-a', { since: new Date(sixth) });
    expect(from.map((record) => record.position)).toEqual([6]);
  });

  it('catches an edit whose chain table was rewritten to match, against a published head', async () => {
    const log = await sealedLog();
    const before = await log.store.audit().verify();
    if (!before.verified) throw new Error('not verified');
    const published: ChainHead = before.head;

    await log.pool.query(
      `update es_events set data = '{"n": 3, "text": "forged"}' where event_id = $1`,
      [idAt(log, 3)],
    );
    await rewriteChain(log.pool);

    expect(await log.store.audit().verify()).toMatchObject({ verified: true, events: 6 });
    expect(await log.store.audit().verify(published)).toMatchObject({
      verified: false,
      break: { kind: 'head_mismatch', position: 6 },
      publishedHead: published,
    });
  });
});

/** What an attacker with write access does: recompute every link from the stored events. */
async function rewriteChain(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{
    event_id: string;
    stream_id: string;
    event_type: string;
    data: string;
    metadata: string;
  }>(
    `select event_id, stream_id, event_type, data::text as data, metadata::text as metadata
       from es_events order by transaction_id, global_position`,
  );
  let previous = GENESIS_HASH;
  for (const [index, row] of rows.entries()) {
    const link = linkOf(previous, index + 1, {
      eventId: row.event_id,
      streamId: row.stream_id,
      type: row.event_type,
      dataText: row.data,
      metadataText: row.metadata,
    });
    await pool.query('update es_chain set content_hash = $2, hash = $3 where position = $1', [
      link.position,
      link.contentHash,
      link.hash,
    ]);
    previous = link.hash;
  }
}
