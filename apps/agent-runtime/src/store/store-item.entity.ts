import { EntitySchema } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import type { StoreVectors } from './store.events.js';
import { jsonKeysColumn } from '../common/json-keys-column.js';

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
  /** Unit vectors by JSON path; a trigger mirrors them into `embeddings` (a 2-D array) for search. */
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
    value: { type: 'jsonb', transformer: jsonKeysColumn },
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
        vectors jsonb,
        embeddings real[]
      );
      create index store_items_namespace on store_items (namespace_path, updated_at desc);
      create index store_items_value on store_items using gin (value jsonb_path_ops);
      create index store_items_expiring on store_items (expires_at) where expires_at is not null;

      -- Each embedding a row of one 2-D array, so that ranking needs no join (see store_best_dot).
      create function store_items_embeddings() returns trigger language plpgsql as $$
      begin
        new.embeddings := case when new.vectors is null then null else array(
          select array(select jsonb_array_elements_text(v.value)::real)
            from jsonb_each(new.vectors) as v
        ) end;
        return new;
      end;
      $$;
      create trigger store_items_embeddings before insert or update of vectors on store_items
        for each row execute function store_items_embeddings();

      -- The best dot product of the query with any row of m (unit vectors: cosine similarity).
      create function store_best_dot(m real[], q real[]) returns double precision
        language plpgsql immutable strict parallel safe as $$
      declare
        best double precision;
        dot double precision;
        n int := array_length(q, 1);
      begin
        if coalesce(array_ndims(m), 0) <> 2 or array_length(m, 2) <> n then return null; end if;
        for r in 1 .. array_length(m, 1) loop
          dot := 0;
          for c in 1 .. n loop
            dot := dot + m[r][c] * q[c];
          end loop;
          if best is null or dot > best then best := dot; end if;
        end loop;
        return best;
      end;
      $$;
    `,
  },
];
