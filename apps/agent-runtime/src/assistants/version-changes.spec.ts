import { describe, expect, it } from '@jest/globals';
import type { AssistantVersionData } from './assistant.events.js';
import { versionChanges, versionProvenance, type AssistantStreamEvent } from './version-changes.js';

const first: AssistantVersionData = {
  version: 1,
  graph_id: 'agent',
  name: 'helper',
  description: null,
  config: { configurable: { model: 'a' }, tags: ['x'] },
  context: { tone: 'dry' },
  metadata: { team: 'support' },
  created_at: '2026-03-01T00:00:00.000Z',
};
const alice = { kind: 'user', identity: 'alice' };

describe('versionChanges', () => {
  it('names each changed field with what it was and what it became, nested ones by path', () => {
    const second: AssistantVersionData = {
      ...first,
      version: 2,
      name: 'helper 2',
      description: 'now described',
      config: { configurable: { model: 'b' }, tags: ['x'] },
      context: {},
      metadata: { team: 'support', 'tier.level': 'gold' },
    };
    expect(versionChanges(first, second)).toEqual([
      { field: 'name', change: 'modified', from: 'helper', to: 'helper 2' },
      { field: 'description', change: 'added', to: 'now described' },
      { field: 'config.configurable.model', change: 'modified', from: 'a', to: 'b' },
      { field: 'context.tone', change: 'removed', from: 'dry' },
      { field: 'metadata["tier.level"]', change: 'added', to: 'gold' },
    ]);
  });

  it('compares arrays whole, and a graph change as a field of its own', () => {
    const moved = {
      ...first,
      version: 2,
      graph_id: 'other',
      config: { ...first.config, tags: [] },
    };
    expect(versionChanges(first, moved)).toEqual([
      { field: 'graph_id', change: 'modified', from: 'agent', to: 'other' },
      { field: 'config.tags', change: 'modified', from: ['x'], to: [] },
    ]);
  });

  it('finds nothing between equal versions, and a removed description as removed', () => {
    expect(versionChanges(first, { ...first, version: 2 })).toEqual([]);
    const described = { ...first, description: 'd' };
    expect(versionChanges(described, first)).toEqual([
      { field: 'description', change: 'removed', from: 'd' },
    ]);
  });

  it('takes every field the first version set as added', () => {
    expect(versionChanges(undefined, first)).toEqual([
      { field: 'graph_id', change: 'added', to: 'agent' },
      { field: 'name', change: 'added', to: 'helper' },
      { field: 'config.configurable.model', change: 'added', to: 'a' },
      { field: 'config.tags', change: 'added', to: ['x'] },
      { field: 'context.tone', change: 'added', to: 'dry' },
      { field: 'metadata.team', change: 'added', to: 'support' },
    ]);
  });
});

describe('versionProvenance', () => {
  const created: AssistantStreamEvent = {
    event: { type: 'AssistantCreated', data: { assistant_id: 'a-1', ...first } },
    metadata: { actor: alice },
  };
  const versioned = (version: number, context: Record<string, string>): AssistantStreamEvent => ({
    event: {
      type: 'AssistantVersioned',
      data: { ...first, version, context, created_at: `2026-03-0${version}T00:00:00.000Z` },
    },
    metadata: { actor: { kind: 'platform' } },
  });

  it('compares each version with the one that was latest when it was made, and names who made it', () => {
    const provenance = versionProvenance([
      created,
      versioned(2, { tone: 'warm' }),
      {
        event: { type: 'AssistantLatestVersionSet', data: { version: 1, updated_at: 'x' } },
        metadata: {},
      },
      versioned(3, { tone: 'curt' }),
    ]);
    expect(provenance.get(1)).toMatchObject({ previous_version: null, changed_by: alice });
    expect(provenance.get(2)).toEqual({
      previous_version: 1,
      changed_by: { kind: 'platform' },
      changes: [{ field: 'context.tone', change: 'modified', from: 'dry', to: 'warm' }],
    });
    // Made while version 1 was latest again: compared with 1, not with 2.
    expect(provenance.get(3)).toMatchObject({
      previous_version: 1,
      changes: [{ field: 'context.tone', change: 'modified', from: 'dry', to: 'curt' }],
    });
  });

  it('records nobody for events without an actor, and starts over when the id is recreated', () => {
    const anonymous = { ...created, metadata: {} };
    const provenance = versionProvenance([
      created,
      versioned(2, { tone: 'warm' }),
      { event: { type: 'AssistantDeleted', data: { deleted_at: 'x' } }, metadata: {} },
      anonymous,
    ]);
    expect([...provenance.keys()]).toEqual([1]);
    expect(provenance.get(1)?.changed_by).toBeNull();
  });
});
