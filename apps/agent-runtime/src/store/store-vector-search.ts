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

  /** Adds a pgvector mirror of each embedding when the extension is there or can be created. */
  private async enablePgvector(): Promise<boolean> {
    const available: unknown[] = await this.dataSource.query(
      `select 1 from pg_available_extensions where name = 'vector'`,
    );
    if (available.length === 0) return false;
    try {
      await this.dataSource.query('create extension if not exists vector');
      await this.dataSource.query(`
        alter table store_item_vectors add column if not exists pgv vector;
        update store_item_vectors set pgv = embedding::vector where pgv is null;
        create or replace function store_item_vectors_pgv() returns trigger language plpgsql as $$
        begin
          new.pgv := new.embedding::vector;
          return new;
        end;
        $$;
        drop trigger if exists store_item_vectors_pgv on store_item_vectors;
        create trigger store_item_vectors_pgv before insert or update of embedding
          on store_item_vectors for each row execute function store_item_vectors_pgv();
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
