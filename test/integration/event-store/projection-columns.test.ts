import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { DataSource, EntitySchema } from 'typeorm';
import {
  migrate,
  PostgresEventStore,
  PROJECTION_MIGRATIONS,
  ProjectionRunner,
  type JsonValue,
  type Projection,
} from '#libs/event-store';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

interface Sample {
  sample_id: string;
  seen_at: Date;
  label: string;
  detail: JsonValue;
  tags: string[];
  score: number | null;
  count: number;
  done: boolean;
  renamed: string;
}

const SampleEntity = new EntitySchema<Sample>({
  name: 'samples',
  tableName: 'samples',
  columns: {
    sample_id: { type: 'uuid', primary: true },
    seen_at: { type: 'timestamptz' },
    label: { type: 'text' },
    detail: { type: 'jsonb', nullable: true },
    tags: { type: 'jsonb' },
    score: { type: 'double precision', nullable: true },
    count: { type: 'integer' },
    done: { type: 'boolean' },
    renamed: { type: 'text', name: 'stored_as' },
  },
});

/** Each `Sampled` event's data is the row it leaves; `Dropped` removes it. */
const samples: Projection<Sample> = {
  name: 'samples',
  entity: SampleEntity,
  key: 'sample_id',
  keyOf: (event) => (event.streamId.startsWith('sample-') ? event.streamId.slice(7) : undefined),
  evolve: (_row, event) => {
    if (event.type === 'Dropped') return undefined;
    const data = event.data as unknown as Omit<Sample, 'seen_at'> & { seen_at: string };
    return { ...data, seen_at: new Date(data.seen_at) };
  },
};

describe('a read model written in one statement per batch', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('projection_columns');
    store = await PostgresEventStore.connect({ connectionString: database.url });
    const pool = new pg.Pool({ connectionString: database.url });
    await migrate(pool, 'read_model_migrations', [
      ...PROJECTION_MIGRATIONS,
      {
        version: 100,
        name: 'samples',
        sql: `create table samples (sample_id uuid primary key, seen_at timestamptz not null,
                label text not null, detail jsonb, tags jsonb not null, score double precision,
                count integer not null, done boolean not null, stored_as text not null,
                noted text default 'kept')`,
      },
    ]);
    await pool.end();
    dataSource = new DataSource({ type: 'postgres', url: database.url, entities: [SampleEntity] });
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource.destroy();
    await store.close();
    await database.drop();
  });

  it('stores every kind of column as TypeORM reads it back, and deletes what a fold removes', async () => {
    const rows: Sample[] = [
      {
        sample_id: randomUUID(),
        seen_at: new Date('2026-11-25T10:11:12.345Z'),
        label: `quotes ' and " and a backslash \\ and ünïcödé`,
        detail: { nested: { list: [1, 'two', null, true] } },
        tags: ['a', 'b'],
        score: 0.125,
        count: 3,
        done: true,
        renamed: 'by another name',
      },
      {
        sample_id: randomUUID(),
        seen_at: new Date('2026-01-01T00:00:00.000Z'),
        label: '',
        detail: 'a JSON string',
        tags: [],
        score: null,
        count: 0,
        done: false,
        renamed: '',
      },
      {
        sample_id: randomUUID(),
        seen_at: new Date('2026-01-02T00:00:00.000Z'),
        label: 'dropped later',
        detail: null,
        tags: ['x'],
        score: -1,
        count: -7,
        done: false,
        renamed: 'gone',
      },
    ];
    const [kept, plain, dropped] = rows;
    if (!kept || !plain || !dropped) throw new Error('three rows');
    for (const row of rows) {
      await store.append(`sample-${row.sample_id}`, [
        {
          eventId: randomUUID(),
          type: 'Sampled',
          data: { ...row, seen_at: row.seen_at.toISOString() },
        },
      ]);
    }
    await store.append(`sample-${dropped.sample_id}`, [
      { eventId: randomUUID(), type: 'Dropped', data: {} },
    ]);

    const runner = new ProjectionRunner(store, dataSource, samples);
    await runner.catchUp();

    const stored = await dataSource.getRepository(SampleEntity).find();
    const byId = new Map(stored.map((row) => [row.sample_id, row]));
    expect(byId.get(kept.sample_id)).toEqual(kept);
    expect(byId.get(plain.sample_id)).toEqual(plain);
    expect(byId.has(dropped.sample_id)).toBe(false);
    const [untouched] = await dataSource.query<{ noted: string }[]>(
      'select noted from samples where sample_id = $1',
      [kept.sample_id],
    );
    expect(untouched?.noted).toBe('kept');

    await store.append(`sample-${plain.sample_id}`, [
      { eventId: randomUUID(), type: 'Dropped', data: {} },
    ]);
    await runner.catchUp();
    const left = await dataSource.getRepository(SampleEntity).find();
    expect(left.map((row) => row.sample_id)).toEqual([kept.sample_id]);
  });
});
