import { EntitySchema } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import type { StoreVectors } from './store.events.js';

export interface StoreItemRow {
  item_id: string;
  namespace: string[];
  /** The labels joined with dots, for prefix scans. */
  namespace_path: string;
  key: string;
  value: JsonObject;
  created_at: Date;
  updated_at: Date;
  ttl_minutes: number | null;
  /** Past this instant the item is gone for every read, before the sweeper removes it. */
  expires_at: Date | null;
  /** Unit vectors by JSON path; `store_item_vectors` mirrors them for search. */
  vectors: StoreVectors | null;
}

export const StoreItemEntity = new EntitySchema<StoreItemRow>({
  name: 'store_items',
  tableName: 'store_items',
  columns: {
    item_id: { type: 'uuid', primary: true },
    namespace: { type: 'text', array: true },
    namespace_path: { type: 'text' },
    key: { type: 'text' },
    value: { type: 'jsonb' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    ttl_minutes: { type: 'double precision', nullable: true },
    expires_at: { type: 'timestamptz', nullable: true },
    vectors: { type: 'jsonb', nullable: true },
  },
});

export const STORE_MIGRATIONS = [
  {
    version: 2401,
    name: 'store items',
    sql: `
      create table store_items (
        item_id uuid primary key,
        namespace text[] not null,
        namespace_path text collate "C" not null,
        key text not null,
        value jsonb not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        ttl_minutes double precision,
        expires_at timestamptz,
        vectors jsonb
      );
      create index store_items_namespace on store_items (namespace_path, updated_at desc);
      create index store_items_expiring on store_items (expires_at) where expires_at is not null;

      create table store_item_vectors (
        item_id uuid not null,
        path text not null,
        embedding real[] not null,
        primary key (item_id, path)
      );

      create function store_dot(a real[], b real[]) returns double precision
        language sql immutable strict parallel safe
        as $$ select sum(x * y) from unnest(a, b) as t(x, y) $$;

      create function store_items_mirror_vectors() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          delete from store_item_vectors where item_id = old.item_id;
        end if;
        if tg_op in ('INSERT', 'UPDATE') and new.vectors is not null then
          insert into store_item_vectors (item_id, path, embedding)
          select new.item_id, v.key, array(select jsonb_array_elements_text(v.value)::real)
            from jsonb_each(new.vectors) as v;
        end if;
        return null;
      end;
      $$;
      create trigger store_items_vectors_row
        after insert or delete or update of vectors on store_items
        for each row execute function store_items_mirror_vectors();

      create function store_items_truncate_vectors() returns trigger language plpgsql as $$
      begin
        truncate store_item_vectors;
        return null;
      end;
      $$;
      create trigger store_items_vectors_truncate
        after truncate on store_items
        for each statement execute function store_items_truncate_vectors();
    `,
  },
];
