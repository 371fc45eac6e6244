import type { Pool } from 'pg';
import type { Migration } from './postgres.schema.js';

const MIGRATION_LOCK_KEY = 0x62657274; // any constant shared by every Berth process

/**
 * Applies the migrations that a database has not seen yet, under an advisory lock, so that
 * replicas starting together migrate once.
 */
export async function migrate(
  pool: Pool,
  table: string,
  migrations: readonly Migration[],
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(
      `create table if not exists ${table} (
         version integer primary key,
         name text not null,
         applied_at timestamptz not null default now()
       )`,
    );
    const applied = await client.query<{ version: number }>(`select version from ${table}`);
    const done = new Set(applied.rows.map((row) => row.version));
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query(`insert into ${table} (version, name) values ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}
