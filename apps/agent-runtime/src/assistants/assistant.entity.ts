import { EntitySchema } from 'typeorm';
import type { JsonObject } from '#libs/event-store';
import type { AssistantVersionData } from './assistant.events.js';
import { jsonKeysColumn } from '../common/json-keys-column.js';

export interface AssistantRow {
  assistant_id: string;
  graph_id: string;
  name: string;
  description: string | null;
  config: JsonObject;
  context: JsonObject;
  metadata: JsonObject;
  version: number;
  created_at: Date;
  updated_at: Date;
  versions: AssistantVersionData[];
}

export const AssistantEntity = new EntitySchema<AssistantRow>({
  name: 'assistants',
  tableName: 'assistants',
  columns: {
    assistant_id: { type: 'uuid', primary: true },
    graph_id: { type: 'text' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    config: { type: 'jsonb' },
    context: { type: 'jsonb' },
    metadata: { type: 'jsonb', transformer: jsonKeysColumn },
    version: { type: 'integer' },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz' },
    versions: { type: 'jsonb', transformer: jsonKeysColumn },
  },
});

export const ASSISTANT_MIGRATIONS = [
  {
    version: 2001,
    name: 'assistants',
    sql: `
      create table assistants (
        assistant_id uuid primary key,
        graph_id text not null,
        name text not null,
        description text,
        config jsonb not null,
        context jsonb not null,
        metadata jsonb not null,
        version integer not null,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        versions jsonb not null
      );
      create index assistants_graph on assistants (graph_id);
      create index assistants_metadata on assistants using gin (metadata jsonb_path_ops);
      create index assistants_created on assistants (created_at desc);
    `,
  },
];
