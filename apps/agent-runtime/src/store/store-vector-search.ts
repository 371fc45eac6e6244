import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { VectorSearchKind } from './store-reads.js';
import { StoreSettings } from './store-settings.js';

/**
 * Chooses how similarity is computed, once at start: with the pgvector extension when the
 * PostgreSQL server has it (its `<=>` operator, exact, in C), an exact scan in SQL otherwise.
 */
@Injectable()
export class StoreVectorSearch implements OnModuleInit {
  private readonly logger = new Logger('store');
  kind: VectorSearchKind = 'exact-sql';

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(StoreSettings) private readonly settings: StoreSettings,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.settings.index) return;
    this.kind = (await this.enablePgvector()) ? 'pgvector' : 'exact-sql';
    this.logger.log(
      this.kind === 'pgvector'
        ? 'Semantic search uses the pgvector extension'
        : 'Semantic search scans vectors exactly in SQL (the server has no pgvector extension)',
    );
  }

  /**
   * With the extension there (or creatable), each embedding is mirrored as a pgvector `vector`
   * into `store_item_vectors`, by a trigger on the read model, filled once for the items before.
   */
  private async enablePgvector(): Promise<boolean> {
    const available: unknown[] = await this.dataSource.query(
      `select 1 from pg_available_extensions where name = 'vector'`,
    );
    if (available.length === 0) return false;
    try {
      await this.dataSource.query('create extension if not exists vector');
      await this.dataSource.query(`
        create table if not exists store_item_vectors (
          item_id uuid not null,
          path text not null,
          pgv vector not null,
          primary key (item_id, path)
        );
        create or replace function store_items_mirror_vectors() returns trigger language plpgsql as $$
        begin
          if tg_op in ('UPDATE', 'DELETE') then
            delete from store_item_vectors where item_id = old.item_id;
          end if;
          if tg_op in ('INSERT', 'UPDATE') and new.vectors is not null then
            insert into store_item_vectors (item_id, path, pgv)
            select new.item_id, v.key, v.value::text::vector from jsonb_each(new.vectors) as v;
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
         where i.vectors is not null
        on conflict do nothing;
      `);
      return true;
    } catch (error) {
      this.logger.warn(
        `pgvector is installed but cannot be enabled here (${error instanceof Error ? error.message : String(error)}): scanning exactly in SQL`,
      );
      return false;
    }
  }
}
