import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { PgvectorSearch } from './store-pgvector-ranking.js';
import { StoreSettings } from './store-settings.js';

/** How similarity is computed: with pgvector where the server has it, an exact scan in SQL otherwise. */
export type VectorSearch = PgvectorSearch | { readonly kind: 'exact-sql' };

/** Iterative index scans (filters applied while the HNSW index is walked) came with pgvector 0.8. */
const HNSW_SINCE = [0, 8];
/** pgvector indexes `vector` columns of at most this many dimensions. */
const HNSW_MAX_DIMS = 2000;
/** Serialises the setup of processes starting together on one database. */
const SETUP_LOCK_KEY = 24_010_001;

function atLeast(version: string, least: readonly number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < least.length; i += 1) {
    const part = parts[i] ?? 0;
    const wanted = least[i] ?? 0;
    if (part !== wanted) return part > wanted;
  }
  return true;
}

/**
 * Chooses how similarity is computed, once at start: with the pgvector extension when the
 * PostgreSQL server has it (an HNSW index on cosine distance from pgvector 0.8 on, an exact scan
 * by its `<=>` operator before), an exact scan in PL/pgSQL otherwise.
 */
@Injectable()
export class StoreVectorSearch implements OnModuleInit {
  private readonly logger = new Logger('store');
  search: VectorSearch = { kind: 'exact-sql' };

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(StoreSettings) private readonly settings: StoreSettings,
  ) {}

  async onModuleInit(): Promise<void> {
    const index = this.settings.index;
    if (!index) return;
    this.search = (await this.enablePgvector(index.dims, index.fields.length)) ?? {
      kind: 'exact-sql',
    };
    this.logger.log(
      this.search.kind === 'exact-sql'
        ? 'Semantic search scans vectors exactly in SQL (the server has no pgvector extension)'
        : this.search.hnsw
          ? 'Semantic search uses the pgvector extension, with an HNSW index'
          : 'Semantic search uses the pgvector extension, by an exact scan (no HNSW index: pgvector before 0.8, or more than 2000 dimensions)',
    );
  }

  private async enablePgvector(dims: number, fields: number): Promise<PgvectorSearch | undefined> {
    const available: unknown[] = await this.dataSource.query(
      `select 1 from pg_available_extensions where name = 'vector'`,
    );
    if (available.length === 0) return undefined;
    try {
      return await this.dataSource.transaction(async (manager) => {
        await manager.query('select pg_advisory_xact_lock($1)', [SETUP_LOCK_KEY]);
        await manager.query('create extension if not exists vector');
        const [extension] = await manager.query<{ version: string }[]>(
          `select extversion as version from pg_extension where extname = 'vector'`,
        );
        await mirrorVectors(manager, dims);
        const hnsw = atLeast(extension?.version ?? '0', HNSW_SINCE) && dims <= HNSW_MAX_DIMS;
        if (hnsw) {
          await manager.query(
            `create index if not exists store_item_vectors_nearest
               on store_item_vectors using hnsw (pgv vector_cosine_ops)`,
          );
        }
        await manager.query('analyze store_item_vectors');
        return { kind: 'pgvector', hnsw, vectorsPerItem: Math.max(1, fields) } as const;
      });
    } catch (error) {
      this.logger.warn(
        `pgvector is installed but cannot be enabled here (${error instanceof Error ? error.message : String(error)}): scanning exactly in SQL`,
      );
      return undefined;
    }
  }
}

/**
 * Each embedding of `store.index.dims` dimensions is mirrored as a pgvector `vector` into
 * `store_item_vectors` by a trigger on the read model, and the items before are copied once.
 * The table is derived: made anew when the dimensions change. Vectors of other dimensions
 * (embedded before the change) are left out, and their items rank as unembedded.
 */
async function mirrorVectors(manager: EntityManager, dims: number): Promise<void> {
  const [column] = await manager.query<{ type: string }[]>(
    `select format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = to_regclass('store_item_vectors') and attname = 'pgv'`,
  );
  if (column && column.type !== `vector(${dims})`) {
    await manager.query('drop table store_item_vectors');
  }
  await manager.query(`
    create table if not exists store_item_vectors (
      item_id uuid not null,
      path text not null,
      pgv vector(${dims}) not null,
      primary key (item_id, path)
    );
    create or replace function store_items_mirror_vectors() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        delete from store_item_vectors where item_id = old.item_id;
      end if;
      if tg_op in ('INSERT', 'UPDATE') and new.vectors is not null then
        insert into store_item_vectors (item_id, path, pgv)
        select new.item_id, v.key, v.value::text::vector from jsonb_each(new.vectors) as v
         where jsonb_array_length(v.value) = ${dims};
      end if;
      return null;
    end;
    $$;
    create or replace function store_items_truncate_vectors() returns trigger language plpgsql as $$
    begin
      truncate store_item_vectors;
      return null;
    end;
    $$;
    drop trigger if exists store_items_vectors_row on store_items;
    create trigger store_items_vectors_row
      after insert or delete or update of vectors on store_items
      for each row execute function store_items_mirror_vectors();
    drop trigger if exists store_items_vectors_truncate on store_items;
    create trigger store_items_vectors_truncate after truncate on store_items
      for each statement execute function store_items_truncate_vectors();
    insert into store_item_vectors (item_id, path, pgv)
    select i.item_id, v.key, v.value::text::vector
      from store_items i, jsonb_each(i.vectors) as v
     where i.vectors is not null and jsonb_array_length(v.value) = ${dims}
    on conflict do nothing;
  `);
}
