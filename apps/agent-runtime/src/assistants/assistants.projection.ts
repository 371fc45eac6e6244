import { domainEventOf } from '#libs/domain';
import type { Projection, RecordedEvent } from '#libs/event-store';
import {
  activeVersion,
  evolveAssistant,
  initialAssistantState,
  type AssistantState,
} from './assistant.decider.js';
import type { AssistantEvent } from './assistant.events.js';
import { AssistantEntity, type AssistantRow } from './assistant.entity.js';

const ASSISTANT_EVENTS = new Set([
  'AssistantCreated',
  'AssistantVersioned',
  'AssistantLatestVersionSet',
  'AssistantDeleted',
]);

function stateOf(row: AssistantRow | undefined): AssistantState {
  if (!row) return initialAssistantState;
  return {
    assistant_id: row.assistant_id,
    exists: true,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version: row.version,
    versions: row.versions,
  };
}

export function rowOf(state: AssistantState): AssistantRow | undefined {
  const active = activeVersion(state);
  if (!state.exists || !active || !state.assistant_id || !state.created_at || !state.updated_at) {
    return undefined;
  }
  return {
    assistant_id: state.assistant_id,
    graph_id: active.graph_id,
    name: active.name,
    description: active.description,
    config: active.config,
    context: active.context,
    metadata: active.metadata,
    version: active.version,
    created_at: new Date(state.created_at),
    updated_at: new Date(state.updated_at),
    versions: [...state.versions],
  };
}

export const assistantsProjection: Projection<AssistantRow> = {
  name: 'assistants',
  entity: AssistantEntity,
  key: 'assistant_id',
  eventTypes: ASSISTANT_EVENTS,
  keyOf: (event: RecordedEvent) =>
    ASSISTANT_EVENTS.has(event.type) ? event.streamId.slice('assistant-'.length) : undefined,
  evolve: (row, event) =>
    rowOf(evolveAssistant(stateOf(row), domainEventOf<AssistantEvent>(event))),
};
