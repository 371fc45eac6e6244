import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPersistence, type Persistence } from '#libs/persistence';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

/** What a session of each pool says of `synchronous_commit`. */
async function synchronousCommitOf(query: () => Promise<{ setting: string }[]>): Promise<string> {
  const [row] = await query();
  return row?.setting ?? '';
}

describe('durability of what persistence opens', () => {
  let database: TestDatabase;
  let dataDir: string;
  let persistence: Persistence;
  /**
   * Reported while the tests run. Thrown from the pool's error event instead, the termination of a
   * connection that the drop at the end finds still closing would end the whole file.
   */
  const errors: unknown[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('durability');
    dataDir = await mkdtemp(join(tmpdir(), 'berth-durability-'));
    persistence = await openPersistence({
      databaseUrl: database.url,
      dataDir,
      eventStoreUrl: undefined,
      migrations: [],
      projections: [],
      onError: (error) => {
        errors.push(error);
      },
    });
  });

  afterAll(async () => {
    expect(errors).toEqual([]);
    await persistence.close();
    await rm(dataDir, { recursive: true, force: true });
    await database.drop();
  });

  const setting = 'select current_setting($1) as setting';

  it('commits read models without waiting for the disk: they are projected again from the log', async () => {
    expect(
      await synchronousCommitOf(() =>
        persistence.dataSource.query(setting, ['synchronous_commit']),
      ),
    ).toBe('off');
  });

  it('keeps the queues durable', async () => {
    expect(
      await synchronousCommitOf(async () => {
        const { rows } = await persistence.pool.query<{ setting: string }>(setting, [
          'synchronous_commit',
        ]);
        return rows;
      }),
    ).toBe('on');
  });
});
