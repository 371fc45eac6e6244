import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource, EntitySchema } from 'typeorm';
import {
  migrate,
  PostgresEventStore,
  PROJECTION_MIGRATIONS,
  ProjectionRunner,
  ProjectionStuckError,
  ProjectionTimeoutError,
  type Projection,
  type ProjectionFailure,
  type RecordedEvent,
} from '#libs/event-store';
import { anEvent } from '../../../libs/event-store/src/testing/event-store.contract.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

interface Tally {
  stream_id: string;
  events: number;
  total: number;
  last_type: string;
}

function tallyEntity(table: string): EntitySchema<Tally> {
  return new EntitySchema<Tally>({
    name: table,
    tableName: table,
    columns: {
      stream_id: { type: 'text', primary: true },
      events: { type: 'integer' },
      total: { type: 'integer' },
      last_type: { type: 'text' },
    },
  });
}

/** Counts each stream's events and sums their `n`; a `Reset` event removes the row. */
function tallyProjection(
  table: string,
  prefix: string,
  beforeEach?: (event: RecordedEvent) => void,
): Projection<Tally> {
  return {
    name: table,
    entity: tallyEntity(table),
    key: 'stream_id',
    keyOf: (event) => (event.streamId.startsWith(prefix) ? event.streamId : undefined),
    evolve: (row, event) => {
      beforeEach?.(event);
      if (event.type === 'Reset') return undefined;
      return {
        stream_id: event.streamId,
        events: (row?.events ?? 0) + 1,
        total: (row?.total ?? 0) + Number(event.data.n ?? 0),
        last_type: event.type,
      };
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('The condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('projection runner', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let dataSource: DataSource;
  const tables = [
    'tally_reference',
    'tally_crashing',
    'tally_live',
    'tally_rebuilt',
    'tally_shared',
    'tally_cached',
    'tally_poisoned',
  ];

  beforeAll(async () => {
    database = await createTestDatabase('projections');
    store = await PostgresEventStore.connect({ connectionString: database.url });
    const pool = new pg.Pool({ connectionString: database.url });
    await migrate(pool, 'read_model_migrations', [
      ...PROJECTION_MIGRATIONS,
      {
        version: 100,
        name: 'tallies',
        sql: tables
          .map(
            (t) =>
              `create table ${t} (stream_id text primary key, events integer not null, total integer not null, last_type text not null);`,
          )
          .join('\n'),
      },
    ]);
    await pool.end();
    dataSource = new DataSource({
      type: 'postgres',
      url: database.url,
      entities: tables.map(tallyEntity),
    });
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource.destroy();
    await store.close();
    await database.drop();
  });

  async function rowsOf(table: string): Promise<Tally[]> {
    return dataSource.query(
      `select stream_id, events, total, last_type from ${table} order by stream_id`,
    );
  }

  it('ends, after a stop in the middle of a batch and a restart, with the rows of a run that never stopped', async () => {
    const prefix = `crash-${randomUUID()}-`;
    for (let i = 0; i < 300; i += 1) {
      const stream = `${prefix}${i % 7}`;
      const type = i % 50 === 49 ? 'Reset' : 'Counted';
      await store.append(stream, [anEvent(type, { n: i })]);
    }

    const reference = new ProjectionRunner(
      store,
      dataSource,
      tallyProjection('tally_reference', prefix),
      {
        batchSize: 100,
      },
    );
    await reference.catchUp();

    let seen = 0;
    let crash!: () => void;
    const crashed = new Promise<void>((resolve) => (crash = resolve));
    const crashing: ProjectionRunner<Tally> = new ProjectionRunner(
      store,
      dataSource,
      tallyProjection('tally_crashing', prefix, () => {
        seen += 1;
        if (seen === 150) {
          crash();
          void crashing.stop();
          throw new Error('the process died here');
        }
      }),
      { batchSize: 100 },
    );
    crashing.start();
    await crashed;
    await crashing.stop();

    const [hundredth] = (await store.readLog({ maxCount: 100 })).slice(-1);
    expect(crashing.position).toEqual(hundredth?.logPosition);
    const halfway = await rowsOf('tally_crashing');
    expect(halfway.reduce((sum, row) => sum + row.events, 0)).toBeLessThanOrEqual(100);

    const restarted = new ProjectionRunner(
      store,
      dataSource,
      tallyProjection('tally_crashing', prefix),
      {
        batchSize: 100,
      },
    );
    await restarted.catchUp();

    expect(await rowsOf('tally_crashing')).toEqual(await rowsOf('tally_reference'));
    expect((await rowsOf('tally_reference')).length).toBeGreaterThan(0);
  });

  it('follows live appends and lets a writer wait until its event is projected', async () => {
    const prefix = `live-${randomUUID()}-`;
    const runner = new ProjectionRunner(store, dataSource, tallyProjection('tally_live', prefix));
    runner.start();
    try {
      const written = await store.append(`${prefix}a`, [anEvent('Counted', { n: 5 })]);
      await runner.waitUntilPast(written.logPosition, 5_000);
      expect(await rowsOf('tally_live')).toEqual([
        { stream_id: `${prefix}a`, events: 1, total: 5, last_type: 'Counted' },
      ]);

      const more = await store.append(`${prefix}a`, [
        anEvent('Counted', { n: 1 }),
        anEvent('Counted', { n: 2 }),
      ]);
      await runner.waitUntilPast(more.logPosition, 5_000);
      expect((await rowsOf('tally_live'))[0]).toMatchObject({ events: 3, total: 8 });
    } finally {
      await runner.stop();
    }
  });

  it('tells how long the events whose rows it wrote waited to reach the read model', async () => {
    const prefix = `delay-${randomUUID()}-`;
    const runner = new ProjectionRunner(store, dataSource, tallyProjection('tally_live', prefix));
    const observed: { projection: string; delaySeconds: number }[] = [];
    runner.appliedObserver = (projection, delaySeconds) => {
      observed.push({ projection, delaySeconds });
    };
    runner.start();
    try {
      const written = await store.append(`${prefix}a`, [anEvent('Counted', { n: 5 })]);
      await runner.waitUntilPast(written.logPosition, 5_000);
      const ignored = await store.append(`elsewhere-${randomUUID()}`, [anEvent('Counted')]);
      await runner.waitUntilPast(ignored.logPosition, 5_000);
    } finally {
      await runner.stop();
    }
    // The event it folded counts; the one of another stream, which wrote no row, does not.
    expect(observed).toHaveLength(1);
    expect(observed[0]?.projection).toBe('tally_live');
    expect(observed[0]?.delaySeconds).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(observed[0]?.delaySeconds)).toBe(true);
  });

  it('reads appends of types it does not fold at once when a writer waits for them', async () => {
    // No poll can come within the test: only a wake-up or a wait makes the runner read.
    const quiet = await PostgresEventStore.connect({
      connectionString: database.url,
      pollIntervalMs: 600_000,
    });
    const prefix = `quiet-${randomUUID()}-`;
    const runner = new ProjectionRunner(quiet, dataSource, {
      ...tallyProjection('tally_live', prefix),
      eventTypes: new Set(['Counted']),
    });
    runner.start();
    try {
      const counted = await quiet.append(`${prefix}a`, [anEvent('Counted', { n: 2 })]);
      await runner.waitUntilPast(counted.logPosition, 5_000);
      const chunk = await quiet.append(`${prefix}a`, [anEvent('Chunk')]);
      await runner.waitUntilPast(chunk.logPosition, 5_000);
      const more = await quiet.append(`${prefix}a`, [anEvent('Counted', { n: 3 })]);
      await runner.waitUntilPast(more.logPosition, 5_000);
      expect((await rowsOf('tally_live')).find((row) => row.stream_id === `${prefix}a`)).toEqual({
        stream_id: `${prefix}a`,
        events: 2,
        total: 5,
        last_type: 'Counted',
      });
    } finally {
      await runner.stop();
      await quiet.close();
    }
  });

  it('passes events it ignores without writing, and reads them again harmlessly after a restart', async () => {
    const prefix = `skip-${randomUUID()}-`;
    const runner = new ProjectionRunner(store, dataSource, tallyProjection('tally_live', prefix));
    runner.start();
    try {
      const counted = await store.append(`${prefix}a`, [anEvent('Counted', { n: 1 })]);
      await runner.waitUntilPast(counted.logPosition, 5_000);
      const ignored = await store.append(`elsewhere-${randomUUID()}`, [
        anEvent('Counted', { n: 100 }),
      ]);
      await runner.waitUntilPast(ignored.logPosition, 5_000);

      const [stored] = await dataSource.query<
        { commit_position: string; prepare_position: string }[]
      >(
        `select commit_position, prepare_position from projection_checkpoints where name = 'tally_live'`,
      );
      expect(stored && BigInt(stored.prepare_position)).toBe(counted.logPosition.prepare);
    } finally {
      await runner.stop();
    }
    const restarted = new ProjectionRunner(
      store,
      dataSource,
      tallyProjection('tally_live', prefix),
    );
    await restarted.catchUp();
    expect((await rowsOf('tally_live')).filter((row) => row.stream_id.startsWith(prefix))).toEqual([
      { stream_id: `${prefix}a`, events: 1, total: 1, last_type: 'Counted' },
    ]);
  });

  it('applies every event exactly once when two replicas follow the same read model', async () => {
    const prefix = `shared-${randomUUID()}-`;
    const otherProcess = await PostgresEventStore.connect({ connectionString: database.url });
    const replicas = [
      new ProjectionRunner(store, dataSource, tallyProjection('tally_shared', prefix)),
      new ProjectionRunner(otherProcess, dataSource, tallyProjection('tally_shared', prefix)),
    ];
    for (const replica of replicas) replica.start();
    try {
      const streams = 8;
      const eventsEach = 15;
      const writers = Array.from({ length: streams }, async (_, index) => {
        const writer = index % 2 === 0 ? store : otherProcess;
        for (let n = 1; n <= eventsEach; n += 1) {
          await writer.append(`${prefix}${index}`, [anEvent('Counted', { n })]);
        }
      });
      await Promise.all(writers);
      const head = await store.headPosition();
      await Promise.all(replicas.map((replica) => replica.waitUntilPast(head, 10_000)));

      const rows = await rowsOf('tally_shared');
      expect(rows).toHaveLength(streams);
      for (const row of rows) {
        expect(row).toMatchObject({
          events: eventsEach,
          total: (eventsEach * (eventsEach + 1)) / 2,
        });
      }
    } finally {
      for (const replica of replicas) await replica.stop();
      await otherProcess.close();
    }
  });

  it('applies onto the rows another runner wrote while it held them in memory', async () => {
    const prefix = `cached-${randomUUID()}-`;
    const stream = `${prefix}a`;
    const runner = new ProjectionRunner(store, dataSource, tallyProjection('tally_cached', prefix));
    runner.start();
    const otherRunner = new pg.Client({ connectionString: database.url });
    await otherRunner.connect();
    try {
      const first = await store.append(stream, [anEvent('Counted', { n: 1 })]);
      await runner.waitUntilPast(first.logPosition, 10_000);

      // Another runner takes the checkpoint's row, projects the next event and moves it on.
      await otherRunner.query('begin');
      await otherRunner.query(
        `select 1 from projection_checkpoints where name = 'tally_cached' for update`,
      );
      const second = await store.append(stream, [anEvent('Counted', { n: 2 })]);
      await otherRunner.query(
        `update projection_checkpoints set commit_position = $1, prepare_position = $2
          where name = 'tally_cached'`,
        [second.logPosition.commit.toString(), second.logPosition.prepare.toString()],
      );
      await otherRunner.query(
        `update tally_cached set events = 2, total = 3 where stream_id = $1`,
        [stream],
      );
      await otherRunner.query('commit');

      const third = await store.append(stream, [anEvent('Counted', { n: 3 })]);
      await runner.waitUntilPast(third.logPosition, 10_000);
      expect(await rowsOf('tally_cached')).toEqual([
        { stream_id: stream, events: 3, total: 6, last_type: 'Counted' },
      ]);
    } finally {
      await otherRunner.end();
      await runner.stop();
    }
  });

  it('gives up waiting for a read model after the bound it was given', async () => {
    const prefix = `stalled-${randomUUID()}-`;
    const runner = new ProjectionRunner(store, dataSource, tallyProjection('tally_live', prefix));
    const written = await store.append(`${prefix}a`, [anEvent()]);
    await expect(runner.waitUntilPast(written.logPosition, 50)).rejects.toBeInstanceOf(
      ProjectionTimeoutError,
    );
  });

  it('says once that it cannot apply an event, fails its waiters at once, and moves again once it can', async () => {
    const prefix = `poison-${randomUUID()}-`;
    const tally = tallyProjection('tally_poisoned', prefix);
    let poisoned = true;
    // A fold that makes a row its table cannot hold (last_type is NOT NULL), until it is fixed.
    const projection: Projection<Tally> = {
      ...tally,
      evolve: (row, event) => {
        const next = tally.evolve(row, event);
        if (event.type !== 'Poison' || !poisoned || !next) return next;
        return { ...next, last_type: null as unknown as string };
      },
    };
    const stuck: ProjectionFailure[] = [];
    const recovered: ProjectionFailure[] = [];
    const runner = new ProjectionRunner(store, dataSource, projection, {
      onStuck: (failure) => stuck.push(failure),
      onRecovered: (failure) => recovered.push(failure),
    });
    await store.append(`${prefix}a`, [anEvent('Counted', { n: 1 }), anEvent('Counted', { n: 2 })]);
    const poison = await store.append(`${prefix}b`, [anEvent('Poison', { n: 5 })]);
    runner.start();
    try {
      await until(() => runner.failure !== undefined);
      expect(runner.failure).toMatchObject({
        projection: 'tally_poisoned',
        event: { stream: `${prefix}b`, type: 'Poison' },
        error: expect.stringContaining('null value') as unknown,
      });
      // The events before it are applied; callers are refused at once, not after their bound.
      expect(await rowsOf('tally_poisoned')).toEqual([
        { stream_id: `${prefix}a`, events: 2, total: 3, last_type: 'Counted' },
      ]);
      const asked = Date.now();
      await expect(runner.waitUntilPast(poison.logPosition, 5_000)).rejects.toBeInstanceOf(
        ProjectionStuckError,
      );
      expect(Date.now() - asked).toBeLessThan(1_000);
      // Retried, and said once.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(runner.failure?.attempts).toBeGreaterThan(2);
      expect(stuck).toHaveLength(1);
      expect(runner.failures).toBe(1);

      poisoned = false;
      await until(() => runner.failure === undefined);
      await runner.waitUntilPast(poison.logPosition, 5_000);
      expect(recovered).toHaveLength(1);
      expect((await rowsOf('tally_poisoned')).map((row) => row.last_type)).toEqual([
        'Counted',
        'Poison',
      ]);
    } finally {
      await runner.stop();
    }
  });

  it('rebuilds a read model from zero', async () => {
    const prefix = `rebuild-${randomUUID()}-`;
    await store.append(`${prefix}a`, [anEvent('Counted', { n: 2 }), anEvent('Counted', { n: 3 })]);
    const runner = new ProjectionRunner(
      store,
      dataSource,
      tallyProjection('tally_rebuilt', prefix),
    );
    await runner.catchUp();
    await dataSource.query(`update tally_rebuilt set total = 999`);

    await runner.rebuild();

    expect(await rowsOf('tally_rebuilt')).toEqual([
      { stream_id: `${prefix}a`, events: 2, total: 5, last_type: 'Counted' },
    ]);
  });
});
