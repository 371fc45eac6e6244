import { EntitySchema } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import type { MultitaskStrategy, RunKwargs, RunStatus } from '../run-records/run.events.js';

export interface RunRow {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: Date;
  updated_at: Date;
  metadata: JsonObject;
  status: RunStatus;
  kwargs: RunKwargs;
  multitask_strategy: MultitaskStrategy;
  temporary: boolean;
}

export const RunEntity = new EntitySchema<RunRow>({
  name: 'runs',
  tableName: 'runs',
  columns: {
    run_id: { type: 'uuid', primary: true },
    thread_id: { type: 'uuid' },
    assistant_id: { type: 'uuid' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    metadata: { type: 'jsonb' },
    status: { type: 'text' },
    kwargs: { type: 'jsonb' },
    multitask_strategy: { type: 'text' },
    temporary: { type: 'boolean' },
  },
});

export const RUN_MIGRATIONS = [
  {
    version: 2201,
    name: 'runs and the run queue',
    sql: `
      create table runs (
        run_id uuid primary key,
        thread_id uuid not null,
        assistant_id uuid not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        metadata jsonb not null,
        status text not null,
        kwargs jsonb not null,
        multitask_strategy text not null,
        temporary boolean not null
      );
      create index runs_thread on runs (thread_id, created_at desc);

      create table run_queue (
        run_id uuid primary key,
        thread_id uuid not null,
        status text not null check (status in ('pending', 'running')),
        attempt integer not null default 0,
        lease_until timestamptz,
        worker_id text,
        cancel_action text,
        payload jsonb not null,
        created_at timestamptz not null default clock_timestamp()
      );
      create unique index run_queue_one_running_per_thread on run_queue (thread_id) where status = 'running';
      create index run_queue_by_thread on run_queue (thread_id);
      create index run_queue_pending on run_queue (created_at) where status = 'pending';
    `,
  },
  {
    version: 2202,
    name: 'delayed runs',
    sql: `alter table run_queue add column not_before timestamptz;`,
  },
  {
    version: 2203,
    name: 'runs created at most once',
    // A run whose id is given by its maker (a cron's tick) is claimed here, in the transaction
    // that queues it: a second maker finds the claim and creates nothing.
    sql: `create table run_claims (
            run_id uuid primary key,
            claimed_at timestamptz not null default clock_timestamp()
          );`,
  },
];
