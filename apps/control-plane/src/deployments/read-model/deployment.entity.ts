import { EntitySchema } from 'typeorm';
import type { Migration } from '#libs/event-store';
import type { DeploymentState } from '../domain/deployment.state.js';

export type DeploymentRow = {
  deployment_id: string;
  tenant_id: string;
  name: string;
  status: string;
  deployment_type: string | null;
  created_at: Date;
  updated_at: Date;
  /** The repository and branch whose pushes build a new revision; null unless build_on_push. */
  push_repo_url: string | null;
  push_repo_ref: string | null;
  /** The whole folded state; responses are derived from it. */
  state: DeploymentState;
};

export const DeploymentEntity = new EntitySchema<DeploymentRow>({
  name: 'deployments',
  tableName: 'deployments',
  columns: {
    deployment_id: { type: 'uuid', primary: true },
    tenant_id: { type: 'uuid' },
    name: { type: 'text' },
    status: { type: 'text' },
    deployment_type: { type: 'text', nullable: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    push_repo_url: { type: 'text', nullable: true },
    push_repo_ref: { type: 'text', nullable: true },
    state: { type: 'jsonb' },
  },
});

export const DEPLOYMENT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1101,
    name: 'deployments',
    sql: `
      create table deployments (
        deployment_id uuid primary key,
        tenant_id uuid not null,
        name text not null,
        status text not null,
        deployment_type text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        state jsonb not null
      );
      create index deployments_tenant_created on deployments (tenant_id, created_at desc);
      create index deployments_tenant_name on deployments (tenant_id, name);
    `,
  },
  {
    version: 1102,
    name: 'deployments_push_followers',
    sql: `
      alter table deployments add column push_repo_url text, add column push_repo_ref text;
      update deployments
        set push_repo_url = state->'source_config'->>'repo_url',
            push_repo_ref = state->'source_revision_config'->>'repo_ref'
        where state->>'source' = 'git_host'
          and (state->'source_config'->>'build_on_push')::boolean;
      create index deployments_push_followers on deployments (tenant_id, push_repo_url, push_repo_ref)
        where push_repo_url is not null;
    `,
  },
];
