import type { Migration } from '#libs/event-store';

export const STREAM_CATALOG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1001,
    name: 'stream catalog',
    sql: `
      create table stream_catalog (
        stream_id text primary key,
        category text not null,
        event_count integer not null,
        first_event_at timestamptz not null,
        last_event_at timestamptz not null,
        last_event_type text not null
      );
      create index stream_catalog_category on stream_catalog (category);
    `,
  },
];
