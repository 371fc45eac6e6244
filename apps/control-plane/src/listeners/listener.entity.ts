import { EntitySchema } from 'typeorm';
import type { JsonObject, Migration } from '#libs/event-store';

export type ListenerRow = {
  listener_id: string;
  tenant_id: string;
  name: string;
  compute_type: 'cluster';
  compute_config: JsonObject;
  created_at: Date;
};

export const ListenerEntity = new EntitySchema<ListenerRow>({
  name: 'listeners',
  tableName: 'listeners',
  columns: {
    listener_id: { type: 'uuid', primary: true },
    tenant_id: { type: 'uuid' },
    name: { type: 'text' },
    compute_type: { type: 'text' },
    compute_config: { type: 'jsonb' },
    created_at: { type: 'timestamptz' },
  },
});

export const LISTENER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1201,
    name: 'listeners',
    sql: `
      create table listeners (
        listener_id uuid primary key,
        tenant_id uuid not null,
        name text not null,
        compute_type text not null,
        compute_config jsonb not null,
        created_at timestamptz not null
      );
      create index listeners_tenant on listeners (tenant_id, created_at);
    `,
  },
];
