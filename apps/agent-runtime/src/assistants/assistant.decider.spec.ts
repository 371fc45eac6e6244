import { describe, expect, it } from '@jest/globals';
import { deciderSpecification } from '#libs/domain';
import type { AssistantEvent, AssistantVersionData } from './assistant.events.js';
import { activeVersion, assistantDecider, type AssistantCommand } from './assistant.decider.js';

const NOW = '2026-03-01T00:00:00.000Z';
const LATER = '2026-03-02T00:00:00.000Z';
const assistant = deciderSpecification(assistantDecider);

const firstVersion: AssistantVersionData = {
  version: 1,
  graph_id: 'agent',
  name: 'helper',
  description: null,
  config: { configurable: { model: 'a' } },
  context: { tone: 'dry' },
  metadata: { team: 'x' },
  created_at: NOW,
};
const created: AssistantEvent = {
  type: 'AssistantCreated',
  data: { assistant_id: 'a-1', ...firstVersion },
};
const create = (overrides: Partial<Extract<AssistantCommand, { kind: 'create' }>> = {}) =>
  ({
    kind: 'create',
    assistant_id: 'a-1',
    graph_id: 'agent',
    fields: {
      name: 'helper',
      config: firstVersion.config,
      context: firstVersion.context,
      metadata: firstVersion.metadata,
    },
    if_exists: 'raise',
    now: NOW,
    ...overrides,
  }) satisfies AssistantCommand;
const update = (fields: Extract<AssistantCommand, { kind: 'update' }>['fields']) =>
  ({ kind: 'update', fields, now: LATER }) satisfies AssistantCommand;
const versioned = (data: Partial<AssistantVersionData>): AssistantEvent => ({
  type: 'AssistantVersioned',
  data: { ...firstVersion, version: 2, created_at: LATER, ...data },
});

describe('assistant decider', () => {
  it('creates version 1, named for its graph when no name is given', () => {
    assistant.given([]).when(create()).then([created]);
    const [event] = assistant
      .given([])
      .when(create({ fields: {} }))
      .events();
    expect(event?.data).toMatchObject({ name: 'agent', config: {}, context: {}, metadata: {} });
  });

  it('refuses a second create unless it asks to do nothing', () => {
    assistant
      .given([created])
      .when(create())
      .thenFails('conflict', /Assistant a-1 already exists/);
    assistant
      .given([created])
      .when(create({ if_exists: 'do_nothing' }))
      .then([]);
  });

  it('makes each update a new version: fields replace whole, metadata merges', () => {
    assistant
      .given([created])
      .when(update({ context: { verbose: true }, metadata: { env: 'prod' } }))
      .then([versioned({ context: { verbose: true }, metadata: { team: 'x', env: 'prod' } })]);
  });

  it('keeps a description unless one is given, and clears it when null is given', () => {
    const described = versioned({ description: 'answers' });
    assistant
      .given([created, described])
      .when(update({ name: 'renamed' }))
      .then([versioned({ version: 3, description: 'answers', name: 'renamed' })]);
    assistant
      .given([created, described])
      .when(update({ description: null }))
      .then([versioned({ version: 3, description: null })]);
  });

  it('numbers a new version after the highest, even when an older one is active', () => {
    const rolledBack: AssistantEvent = {
      type: 'AssistantLatestVersionSet',
      data: { version: 1, updated_at: LATER },
    };
    const state = assistant
      .given([created, versioned({}), rolledBack])
      .when(update({ name: 'third' }))
      .state();
    expect(state.version).toBe(3);
    expect(activeVersion(state)).toMatchObject({ version: 3, name: 'third', graph_id: 'agent' });
  });

  it('sets the latest version only to a version that exists', () => {
    assistant
      .given([created, versioned({})])
      .when({ kind: 'set_latest', version: 1, now: LATER })
      .then([{ type: 'AssistantLatestVersionSet', data: { version: 1, updated_at: LATER } }]);
    assistant
      .given([created])
      .when({ kind: 'set_latest', version: 7, now: LATER })
      .thenFails('not_found', /Assistant version 7 not found/);
  });

  it('deletes once; a deleted assistant takes no more commands but can be created again', () => {
    const deleted: AssistantEvent = { type: 'AssistantDeleted', data: { deleted_at: LATER } };
    assistant.given([created]).when({ kind: 'delete', now: LATER }).then([deleted]);
    for (const command of [
      { kind: 'delete', now: LATER },
      update({ name: 'x' }),
      { kind: 'set_latest', version: 1, now: LATER },
    ] satisfies AssistantCommand[]) {
      assistant
        .given([created, deleted])
        .when(command)
        .thenFails('not_found', /Assistant/);
    }
    assistant.given([created, deleted]).when(create()).then([created]);
  });
});

describe('assistant decider, on what the assistants read model cannot hold', () => {
  const update = (fields: Record<string, unknown>): AssistantCommand => ({
    kind: 'update',
    fields,
    now: LATER,
  });

  it.each([
    [{ graph_id: '' }, /^graph_id must not be empty/],
    [{ graph_id: 7 }, /^graph_id must be a string/],
    [{ name: ['x'] }, /^name must be a string, not a list/],
    [{ config: 'x' }, /^config must be an object/],
    [{ metadata: [] }, /^metadata must be an object, not a list/],
    [{ description: 5 }, /^description must be a string/],
  ])('refuses the update %j', (fields, message) => {
    assistant.given([created]).when(update(fields)).thenFails('validation', message);
  });

  it('takes a null in a field that cannot be null as not given', () => {
    const [event] = assistant
      .given([created])
      .when(update({ graph_id: null, name: null, config: null, context: null, metadata: null }))
      .events();
    expect(event?.data).toMatchObject({
      graph_id: 'agent',
      name: 'helper',
      config: firstVersion.config,
      context: firstVersion.context,
      metadata: firstVersion.metadata,
    });
  });

  it('refuses to create an assistant without a graph', () => {
    assistant
      .given([])
      .when(create({ graph_id: null as unknown as string }))
      .thenFails('validation', /^graph_id must be a string, not null/);
  });
});
