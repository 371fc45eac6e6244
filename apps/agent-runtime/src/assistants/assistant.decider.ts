import {
  conflict,
  notFound,
  requireObject,
  requireText,
  requireTextOrNull,
  type Decider,
  type JsonObject,
} from '#libs/domain';
import type { AssistantEvent, AssistantVersionData } from './assistant.events.js';

export interface AssistantState {
  readonly assistant_id: string | null;
  readonly exists: boolean;
  readonly created_at: string | null;
  readonly updated_at: string | null;
  /** The active version. */
  readonly version: number;
  /** Every version, oldest first. */
  readonly versions: readonly AssistantVersionData[];
}

export interface AssistantFields {
  readonly graph_id?: string;
  readonly name?: string;
  readonly description?: string | null;
  readonly config?: JsonObject;
  readonly context?: JsonObject;
  readonly metadata?: JsonObject;
}

export type AssistantCommand =
  | {
      readonly kind: 'create';
      readonly assistant_id: string;
      readonly graph_id: string;
      readonly fields: AssistantFields;
      readonly if_exists: 'raise' | 'do_nothing';
      readonly now: string;
    }
  | { readonly kind: 'update'; readonly fields: AssistantFields; readonly now: string }
  | { readonly kind: 'set_latest'; readonly version: number; readonly now: string }
  | { readonly kind: 'delete'; readonly now: string };

export const initialAssistantState: AssistantState = {
  assistant_id: null,
  exists: false,
  created_at: null,
  updated_at: null,
  version: 0,
  versions: [],
};

export function activeVersion(state: AssistantState): AssistantVersionData | undefined {
  return state.versions.find((v) => v.version === state.version);
}

export function evolveAssistant(state: AssistantState, event: AssistantEvent): AssistantState {
  switch (event.type) {
    case 'AssistantCreated': {
      const { assistant_id, ...version } = event.data;
      return {
        assistant_id,
        exists: true,
        created_at: version.created_at,
        updated_at: version.created_at,
        version: version.version,
        versions: [version],
      };
    }
    case 'AssistantVersioned':
      return {
        ...state,
        updated_at: event.data.created_at,
        version: event.data.version,
        versions: [...state.versions, event.data],
      };
    case 'AssistantLatestVersionSet':
      return { ...state, updated_at: event.data.updated_at, version: event.data.version };
    case 'AssistantDeleted':
      return { ...initialAssistantState, assistant_id: state.assistant_id };
    default:
      // An event erased with the assistant (`ContentErased`, its key destroyed) changes nothing.
      return state;
  }
}

/** Long enough for any real name; the graph id is one of the application's. */
const MAX_NAME = 10_000;

/**
 * What the `assistants` read model holds: `graph_id`, `name`, `config`, `context` and `metadata`
 * are NOT NULL (a null given is taken as not given), `description` may be null.
 */
function checkFields(fields: { readonly [K in keyof AssistantFields]?: unknown }): void {
  const { graph_id, name, description, config, context, metadata } = fields;
  if (graph_id != null) requireText('graph_id', graph_id, { maxLength: MAX_NAME });
  if (name != null) requireText('name', name, { maxLength: MAX_NAME, allowEmpty: true });
  if (description !== undefined) {
    requireTextOrNull('description', description, { maxLength: 1_000_000, allowEmpty: true });
  }
  for (const [field, value] of Object.entries({ config, context, metadata })) {
    if (value != null) requireObject(field, value);
  }
}

function decide(command: AssistantCommand, state: AssistantState): AssistantEvent[] {
  if (command.kind === 'create') {
    checkFields(command.fields);
    // The graph of a new assistant is required: null is not taken as absent here.
    requireText('graph_id', command.graph_id, { maxLength: MAX_NAME });
    return decideCreate(command, state);
  }
  if (command.kind === 'update') checkFields(command.fields);
  const current = activeVersion(state);
  if (!state.exists || !current) throw notFound('Assistant not found');
  switch (command.kind) {
    case 'update':
      return [
        {
          type: 'AssistantVersioned',
          data: nextVersion(state, current, command.fields, command.now),
        },
      ];
    case 'set_latest':
      if (!state.versions.some((v) => v.version === command.version)) {
        throw notFound(`Assistant version ${command.version} not found`);
      }
      return [
        {
          type: 'AssistantLatestVersionSet',
          data: { version: command.version, updated_at: command.now },
        },
      ];
    case 'delete':
      return [{ type: 'AssistantDeleted', data: { deleted_at: command.now } }];
  }
}

function decideCreate(
  command: Extract<AssistantCommand, { kind: 'create' }>,
  state: AssistantState,
): AssistantEvent[] {
  if (state.exists) {
    if (command.if_exists === 'do_nothing') return [];
    throw conflict(`Assistant ${command.assistant_id} already exists`);
  }
  const { fields } = command;
  return [
    {
      type: 'AssistantCreated',
      data: {
        assistant_id: command.assistant_id,
        version: 1,
        graph_id: command.graph_id,
        name: fields.name ?? command.graph_id,
        description: fields.description ?? null,
        config: fields.config ?? {},
        context: fields.context ?? {},
        metadata: fields.metadata ?? {},
        created_at: command.now,
      },
    },
  ];
}

/**
 * A new version takes each supplied field as it is: a supplied `context` or `config` replaces the
 * old one whole, never merged. Metadata is merged, as the reference server does.
 */
function nextVersion(
  state: AssistantState,
  current: AssistantVersionData,
  fields: AssistantFields,
  now: string,
): AssistantVersionData {
  const highest = Math.max(...state.versions.map((v) => v.version));
  return {
    version: highest + 1,
    graph_id: fields.graph_id ?? current.graph_id,
    name: fields.name ?? current.name,
    description: fields.description !== undefined ? fields.description : current.description,
    config: fields.config ?? current.config,
    context: fields.context ?? current.context,
    metadata: fields.metadata ? { ...current.metadata, ...fields.metadata } : current.metadata,
    created_at: now,
  };
}

export const assistantDecider: Decider<AssistantState, AssistantCommand, AssistantEvent> = {
  initialState: initialAssistantState,
  evolve: evolveAssistant,
  decide,
};
