import { EntitySchema } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import { jsonKeysColumn } from '../common/json-keys-column.js';

export interface CronRow {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  on_run_completed: 'delete' | 'keep' | null;
  end_time: Date | null;
  schedule: string;
  timezone: string | null;
  created_at: Date;
  updated_at: Date;
  payload: JsonObject;
  user_id: string | null;
  next_run_date: Date | null;
  metadata: JsonObject;
  enabled: boolean;
  /** The last tick fired, the run it made and when. */
  last_tick: Date | null;
  last_run_id: string | null;
  last_fired_at: Date | null;
}

export const CronEntity = new EntitySchema<CronRow>({
  name: 'crons',
  tableName: 'crons',
  columns: {
    cron_id: { type: 'uuid', primary: true },
    assistant_id: { type: 'uuid' },
    thread_id: { type: 'uuid', nullable: true },
    on_run_completed: { type: 'text', nullable: true },
    end_time: { type: 'timestamptz', nullable: true },
    schedule: { type: 'text' },
    timezone: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    payload: { type: 'jsonb', transformer: jsonKeysColumn },
    user_id: { type: 'text', nullable: true },
    next_run_date: { type: 'timestamptz', nullable: true },
    metadata: { type: 'jsonb', transformer: jsonKeysColumn },
    enabled: { type: 'boolean' },
    last_tick: { type: 'timestamptz', nullable: true },
    last_run_id: { type: 'uuid', nullable: true },
    last_fired_at: { type: 'timestamptz', nullable: true },
  },
});

export const CRON_MIGRATIONS = [
  {
    version: 2501,
    name: 'crons',
    sql: `
      create table crons (
        cron_id uuid primary key,
        assistant_id uuid not null,
        thread_id uuid,
        on_run_completed text,
        end_time timestamptz,
        schedule text not null,
        timezone text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        payload jsonb not null,
        user_id text,
        next_run_date timestamptz,
        metadata jsonb not null,
        enabled boolean not null,
        last_tick timestamptz,
        last_run_id uuid,
        last_fired_at timestamptz
      );
      create index crons_due on crons (next_run_date) where next_run_date is not null;
      create index crons_assistant on crons (assistant_id);
      create index crons_thread on crons (thread_id);
      create index crons_metadata on crons using gin (metadata jsonb_path_ops);
    `,
  },
];
