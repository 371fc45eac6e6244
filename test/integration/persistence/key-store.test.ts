import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  DataKeyStore,
  ForeignMasterKeyError,
  KEY_STORE_MIGRATIONS,
  resolveMasterKey,
  rewrapKeyStore,
  type MasterKey,
} from '#libs/encryption';
import { migrate } from '#libs/event-store';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

const masterKey = (): Promise<MasterKey> =>
  resolveMasterKey({ berthMasterKey: randomBytes(32).toString('hex'), keyFile: '/nonexistent' });

describe('the key store on PostgreSQL', () => {
  let database: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase('key_store');
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    await migrate(pool, 'key_store_migrations', KEY_STORE_MIGRATIONS);
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it('makes one key per scope, even for writers racing, and forgets a destroyed one', async () => {
    const master = await masterKey();
    const [one, two] = [new DataKeyStore(pool, master), new DataKeyStore(pool, master)];
    const made = await Promise.all([one.keyOf('thread:a'), two.keyOf('thread:a')]);
    expect(made[0].keyId).toBe(made[1].keyId);
    expect(made[0].key.equals(made[1].key)).toBe(true);
    const { rows } = await pool.query<{ wrapped_key: string }>(
      'select wrapped_key from encryption_keys where scope = $1',
      ['thread:a'],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.wrapped_key).not.toContain(made[0].key.toString('base64url'));

    await one.destroy('thread:a');
    expect(await one.keyById(made[0].keyId)).toBeUndefined();
    expect(await new DataKeyStore(pool, master).keyById(made[0].keyId)).toBeUndefined();
    const again = await one.keyOf('thread:a');
    expect(again.keyId).not.toBe(made[0].keyId);
  });

  it('rotates the master key by wrapping every data key again, the keys themselves unchanged', async () => {
    const [old, next] = [await masterKey(), await masterKey()];
    const before = new DataKeyStore(pool, old);
    const keys = await Promise.all(
      ['thread:r1', 'thread:r2', 'thread:r3'].map((s) => before.keyOf(s)),
    );
    await expect(new DataKeyStore(pool, next).keyById(keys[0]?.keyId ?? '')).rejects.toThrow(
      ForeignMasterKeyError,
    );

    expect(await rewrapKeyStore(pool, old, next, 2)).toBe(3);
    const after = new DataKeyStore(pool, next);
    for (const { keyId, key } of keys) expect((await after.keyById(keyId))?.equals(key)).toBe(true);
    await expect(new DataKeyStore(pool, old).keyById(keys[0]?.keyId ?? '')).rejects.toThrow(
      ForeignMasterKeyError,
    );
  });
});
