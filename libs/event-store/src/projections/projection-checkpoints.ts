import type { EntityManager } from 'typeorm';
import { LOG_START, type LogPosition } from '../log-position.js';
import type { Migration } from '../postgres/postgres.schema.js';

export const PROJECTION_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'projection checkpoints',
    sql: `
      create table projection_checkpoints (
        name text primary key,
        commit_position numeric(20) not null,
        prepare_position numeric(20) not null,
        updated_at timestamptz not null default now()
      );
    `,
  },
];

interface CheckpointRow {
  commit_position: string;
  prepare_position: string;
}

/** Where each projection has got to in the log, kept in the same database as its rows. */
export const projectionCheckpoints = {
  async ensure(manager: EntityManager, name: string): Promise<void> {
    await manager.query(
      `insert into projection_checkpoints (name, commit_position, prepare_position)
       values ($1, $2, $3) on conflict (name) do nothing`,
      [name, LOG_START.commit.toString(), LOG_START.prepare.toString()],
    );
  },

  async read(manager: EntityManager, name: string, forUpdate = false): Promise<LogPosition> {
    const rows: CheckpointRow[] = await manager.query(
      `select commit_position, prepare_position from projection_checkpoints where name = $1
       ${forUpdate ? 'for update' : ''}`,
      [name],
    );
    const row = rows[0];
    if (!row) return LOG_START;
    return { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
  },

  async write(manager: EntityManager, name: string, position: LogPosition): Promise<void> {
    await manager.query(
      `update projection_checkpoints
          set commit_position = $2, prepare_position = $3, updated_at = now()
        where name = $1`,
      [name, position.commit.toString(), position.prepare.toString()],
    );
  },
};
