import { EntitySchema } from 'typeorm';

/** One row per stream in the log: what exists, how long, and what happened to it last. */
export interface StreamCatalogRow {
  stream_id: string;
  category: string;
  event_count: number;
  first_event_at: Date;
  last_event_at: Date;
  last_event_type: string;
}

export const StreamCatalogEntity = new EntitySchema<StreamCatalogRow>({
  name: 'stream_catalog',
  tableName: 'stream_catalog',
  columns: {
    stream_id: { type: 'text', primary: true },
    category: { type: 'text' },
    event_count: { type: 'integer' },
    first_event_at: { type: 'timestamptz' },
    last_event_at: { type: 'timestamptz' },
    last_event_type: { type: 'text' },
  },
});
