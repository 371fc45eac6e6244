import type { SchemaObject } from '@nestjs/swagger';
import {
  anyObject as object,
  AUDIT_VERIFICATION_SCHEMA,
  listOf,
  nullable,
  record,
  schemaRef,
  timestamp,
  uuid,
} from '#libs/http';

const assistantFields = {
  assistant_id: uuid,
  graph_id: { type: 'string' },
  config: object,
  context: object,
  metadata: object,
  created_at: timestamp,
  version: { type: 'integer', minimum: 1 },
  name: { type: 'string' },
  description: nullable({ type: 'string' }),
} satisfies Record<string, SchemaObject>;

const versionChange: SchemaObject = {
  type: 'object',
  description:
    'A field the version changed: `graph_id`, `name`, `description` whole, `config`, `context` and `metadata` by path (`context.model`); `from` is absent when added, `to` when removed.',
  properties: {
    field: { type: 'string' },
    change: { type: 'string', enum: ['added', 'removed', 'modified'] },
    from: {},
    to: {},
  },
  required: ['field', 'change'],
};

const checkpoint: SchemaObject = {
  type: 'object',
  description: 'Where a state was saved.',
  properties: {
    thread_id: { type: 'string' },
    checkpoint_ns: { type: 'string' },
    checkpoint_id: { type: 'string' },
    checkpoint_map: nullable(object),
  },
  required: ['thread_id', 'checkpoint_ns', 'checkpoint_id'],
};

const threadState: SchemaObject = {
  ...record(
    {
      values: { description: "The graph's state values (an object, or a list for some graphs)" },
      next: { type: 'array', items: { type: 'string' } },
      tasks: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            error: nullable({ type: 'string' }),
            interrupts: { type: 'array' },
            path: { type: 'array' },
            checkpoint: nullable(object),
            state: nullable(schemaRef('ThreadState')),
            result: {},
          },
          required: ['id', 'name', 'interrupts'],
        },
      },
      metadata: object,
      created_at: nullable(timestamp),
      checkpoint: nullable(schemaRef('Checkpoint')),
      parent_checkpoint: nullable(schemaRef('Checkpoint')),
    },
    'A thread at one checkpoint.',
  ),
};

const storageFields = {
  rows: { type: 'integer', minimum: 0, description: 'Stored entries counted' },
  bytes: { type: 'integer', minimum: 0, description: 'Bytes of their JSON text, as stored' },
} satisfies Record<string, SchemaObject>;

const threadStorage = record(
  {
    thread_id: uuid,
    total_bytes: { type: 'integer', minimum: 0, description: 'The three sections together' },
    checkpoints: record(
      storageFields,
      'Saved checkpoints (their metadata included), values aside.',
    ),
    channel_values: record(
      {
        ...storageFields,
        by_channel: {
          type: 'object',
          additionalProperties: record(storageFields, 'One channel.'),
        },
      },
      'Channel values the checkpoints hold: one row per checkpoint and channel.',
    ),
    pending_writes: record(storageFields, "Tasks' writes: one row per write."),
  },
  "Bytes a thread's checkpoints take in the event log.",
);

const storeItem = record(
  {
    namespace: { type: 'array', items: { type: 'string' } },
    key: { type: 'string' },
    value: object,
    created_at: timestamp,
    updated_at: timestamp,
  },
  'A stored item.',
);

/** The schemas of the runtime's answers, as the official SDK's types describe them. */
export const RUNTIME_RESPONSE_SCHEMAS: Record<string, SchemaObject> = {
  Assistant: record(
    { ...assistantFields, updated_at: timestamp },
    'An assistant at its active version.',
  ),
  AssistantVersion: record(
    {
      ...assistantFields,
      previous_version: nullable({
        type: 'integer',
        minimum: 1,
        description: 'The version that was latest when this one was made; null for the first',
      }),
      changed_by: nullable({
        ...object,
        description:
          'Who made it, as recorded on its event: `{kind: "user", identity}` or `{kind: "platform"}`',
      }),
      changes: { type: 'array', items: versionChange },
    },
    'One version of an assistant, with what it changed from the version it was made from.',
  ),
  Thread: record(
    {
      thread_id: uuid,
      created_at: timestamp,
      updated_at: timestamp,
      metadata: object,
      status: { type: 'string', enum: ['idle', 'busy', 'interrupted', 'error'] },
      values: { description: 'The latest state values, or null before any run' },
      interrupts: object,
    },
    'A thread.',
  ),
  ThreadState: threadState,
  ThreadStorage: threadStorage,
  Checkpoint: checkpoint,
  Run: record(
    {
      run_id: uuid,
      thread_id: uuid,
      assistant_id: uuid,
      created_at: timestamp,
      updated_at: timestamp,
      metadata: object,
      status: {
        type: 'string',
        enum: ['pending', 'running', 'error', 'success', 'timeout', 'interrupted'],
      },
      kwargs: object,
      multitask_strategy: nullable({
        type: 'string',
        enum: ['reject', 'interrupt', 'rollback', 'enqueue'],
      }),
    },
    'A run of an assistant, on a thread or stateless.',
  ),
  Cron: record(
    {
      cron_id: uuid,
      assistant_id: uuid,
      thread_id: nullable(uuid),
      end_time: nullable(timestamp),
      schedule: { type: 'string' },
      created_at: timestamp,
      updated_at: timestamp,
      payload: object,
      user_id: nullable({ type: 'string' }),
      next_run_date: nullable(timestamp),
      metadata: object,
      enabled: { type: 'boolean' },
    },
    'A scheduled run.',
  ),
  StoreItem: storeItem,
  StoreSearchResult: record(
    {
      items: listOf('StoreItem'),
    },
    'Stored items, best match first when a query was given.',
  ),
  StoreNamespaces: record(
    { namespaces: { type: 'array', items: { type: 'array', items: { type: 'string' } } } },
    'Namespaces that hold items.',
  ),
  GraphDrawing: record(
    { nodes: { type: 'array', items: object }, edges: { type: 'array', items: object } },
    "A graph's nodes and edges.",
  ),
  GraphSchemas: record(
    {
      graph_id: { type: 'string' },
      input_schema: nullable(object),
      output_schema: nullable(object),
      state_schema: nullable(object),
      config_schema: nullable(object),
      context_schema: nullable(object),
    },
    "JSON schemas of a graph's input, output, state, config and context; null where unknown.",
  ),
  Subgraphs: {
    type: 'object',
    description:
      'Subgraph schemas by namespace (`a`, `a|b`): each its state, input, output and config.',
    additionalProperties: record(
      {
        state: nullable(object),
        input: nullable(object),
        output: nullable(object),
        config: nullable(object),
      },
      "JSON schemas of a subgraph's state, input, output and config; null where unknown.",
    ),
  },
  StateUpdated: record({ checkpoint: schemaRef('Checkpoint') }, 'The checkpoint the update saved.'),
  Count: { type: 'integer', minimum: 0, description: 'How many match.' },
  RunResult: { description: "The thread's values when the run ended (or its error)." },
  Info: { ...object, description: 'What this runtime serves.' },
  AuditVerification: AUDIT_VERIFICATION_SCHEMA,
};
