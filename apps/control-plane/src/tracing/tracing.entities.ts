import { EntitySchema } from 'typeorm';
import type { Migration } from '#libs/event-store';

export type TracingProjectRow = {
  project_id: string;
  tenant_id: string;
  name: string;
  deployment_id: string;
  created_at: Date;
  deployment_deleted_at: Date | null;
};

export const TracingProjectEntity = new EntitySchema<TracingProjectRow>({
  name: 'tracing_projects',
  tableName: 'tracing_projects',
  columns: {
    project_id: { type: 'uuid' },
    tenant_id: { type: 'uuid' },
    name: { type: 'text' },
    deployment_id: { type: 'uuid', primary: true },
    created_at: { type: 'timestamptz' },
    deployment_deleted_at: { type: 'timestamptz', nullable: true },
  },
});

export const TRACING_MIGRATIONS: readonly Migration[] = [
  {
    version: 1301,
    name: 'tracing projects and runs',
    sql: `
      create table tracing_projects (
        deployment_id uuid primary key,
        project_id uuid not null unique,
        tenant_id uuid not null,
        name text not null,
        created_at timestamptz not null,
        deployment_deleted_at timestamptz
      );
      create index tracing_projects_tenant on tracing_projects (tenant_id, created_at desc);
      create table traced_runs (
        run_id uuid primary key,
        project_id uuid not null,
        thread_id uuid,
        assistant_id text,
        status text not null,
        attempt integer,
        created_at timestamptz not null,
        started_at timestamptz,
        finished_at timestamptz,
        received_at timestamptz not null default now()
      );
      create index traced_runs_project on traced_runs (project_id, created_at desc);
    `,
  },
];
