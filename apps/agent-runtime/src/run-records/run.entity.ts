import { EntitySchema } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import type { MultitaskStrategy, RunKwargs, RunStatus } from './run.events.js';
import { jsonKeysColumn } from '../common/json-keys-column.js';

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
    metadata: { type: 'jsonb', transformer: jsonKeysColumn },
    status: { type: 'text' },
    kwargs: { type: 'jsonb', transformer: jsonKeysColumn },
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
  {
    version: 2204,
    name: 'a run queued in one statement when its thread has none',
    // Takes the thread's admission lock (held until the statement's transaction ends), then,
    // with a snapshot taken after it (a volatile function's statements each take one), queues
    // and announces the run when the thread has no other; otherwise queues nothing and returns
    // the thread's queued runs, for the caller's full admission.
    sql: `
      create function run_queue_admit_if_idle(p_lock_key text, p_thread uuid, p_run uuid,
                                              p_payload jsonb, p_not_before timestamptz,
                                              p_channel text, p_notice text)
      returns table (queued_run uuid)
      language plpgsql volatile as $$
      begin
        perform pg_advisory_xact_lock(hashtextextended(p_lock_key, 0));
        if exists (select 1 from run_queue where thread_id = p_thread) then
          return query select q.run_id from run_queue q where q.thread_id = p_thread
                        order by q.created_at;
          return;
        end if;
        insert into run_queue (run_id, thread_id, status, payload, not_before)
        values (p_run, p_thread, 'pending', p_payload, p_not_before);
        perform pg_notify(p_channel, p_notice);
      end;
      $$;
    `,
  },
  {
    version: 2205,
    name: "a queued run's caller",
    // The user of the application's auth a run is for (what its `authenticate` returned, and
    // the permissions), which the graph reads at execution: kept with the queued run, gone with
    // its row once it has run, never in the event log. The admission function takes it too.
    sql: `
      alter table run_queue add column caller jsonb;
      drop function run_queue_admit_if_idle(text, uuid, uuid, jsonb, timestamptz, text, text);
      create function run_queue_admit_if_idle(p_lock_key text, p_thread uuid, p_run uuid,
                                              p_payload jsonb, p_not_before timestamptz,
                                              p_channel text, p_notice text, p_caller jsonb)
      returns table (queued_run uuid)
      language plpgsql volatile as $$
      begin
        perform pg_advisory_xact_lock(hashtextextended(p_lock_key, 0));
        if exists (select 1 from run_queue where thread_id = p_thread) then
          return query select q.run_id from run_queue q where q.thread_id = p_thread
                        order by q.created_at;
          return;
        end if;
        insert into run_queue (run_id, thread_id, status, payload, not_before, caller)
        values (p_run, p_thread, 'pending', p_payload, p_not_before, p_caller);
        perform pg_notify(p_channel, p_notice);
      end;
      $$;
    `,
  },
  {
    version: 2206,
    name: 'a run queued when its thread has none, looked at in one snapshot',
    // 2205 looked twice: a worker's removal of the thread's last run committed between the look
    // and the list made the list empty, which the caller reads as queued, and the run was never
    // queued. The list is the look now: rows back, nothing queued; none, the run is queued.
    sql: `
      create or replace function run_queue_admit_if_idle(p_lock_key text, p_thread uuid,
                                                         p_run uuid, p_payload jsonb,
                                                         p_not_before timestamptz,
                                                         p_channel text, p_notice text,
                                                         p_caller jsonb)
      returns table (queued_run uuid)
      language plpgsql volatile as $$
      begin
        perform pg_advisory_xact_lock(hashtextextended(p_lock_key, 0));
        return query select q.run_id from run_queue q where q.thread_id = p_thread
                      order by q.created_at;
        if found then
          return;
        end if;
        insert into run_queue (run_id, thread_id, status, payload, not_before, caller)
        values (p_run, p_thread, 'pending', p_payload, p_not_before, p_caller);
        perform pg_notify(p_channel, p_notice);
      end;
      $$;
    `,
  },
];
