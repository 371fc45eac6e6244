import { EntitySchema } from 'typeorm';
import type { JsonObject, JsonValue } from '#libs/event-store';
import { jsonKeysColumn } from '../common/json-keys-column.js';

export type ThreadStatus = 'idle' | 'busy' | 'interrupted' | 'error';

export interface ThreadRow {
  thread_id: string;
  created_at: Date;
  updated_at: Date;
  metadata: JsonObject;
  status: ThreadStatus;
  config: JsonObject;
  values: JsonValue;
  interrupts: JsonObject;
  /** Runs created on the thread and not finished yet. */
  inflight_runs: string[];
  /** Deleted once left alone this long; null: kept until deleted. */
  ttl_minutes: number | null;
}

export const ThreadEntity = new EntitySchema<ThreadRow>({
  name: 'threads',
  tableName: 'threads',
  columns: {
    thread_id: { type: 'uuid', primary: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    metadata: { type: 'jsonb', transformer: jsonKeysColumn },
    status: { type: 'text' },
    config: { type: 'jsonb', transformer: jsonKeysColumn },
    values: { type: 'jsonb', nullable: true },
    interrupts: { type: 'jsonb' },
    inflight_runs: { type: 'jsonb' },
    ttl_minutes: { type: 'double precision', nullable: true },
  },
});

export const THREAD_MIGRATIONS = [
  {
    version: 2101,
    name: 'threads',
    sql: `
      create table threads (
        thread_id uuid primary key,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        metadata jsonb not null,
        status text not null,
        config jsonb not null,
        values jsonb,
        interrupts jsonb not null,
        inflight_runs jsonb not null
      );
      create index threads_metadata on threads using gin (metadata jsonb_path_ops);
      create index threads_status on threads (status);
      create index threads_created on threads (created_at desc);
    `,
  },
  {
    version: 2102,
    name: 'thread ttl',
    sql: `
      alter table threads add column ttl_minutes double precision;
      create index threads_expiring on threads (updated_at) where ttl_minutes is not null;
    `,
  },
];
