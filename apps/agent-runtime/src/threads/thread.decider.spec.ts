import { describe, expect, it } from '@jest/globals';
import type { ThreadEvent } from './thread.events.js';
import { threadDecider, type ThreadCommand } from './thread.decider.js';

const NOW = '2026-02-01T00:00:00.000Z';

function decide(given: ThreadEvent[], command: ThreadCommand): ThreadEvent[] {
  const state = given.reduce(
    (folded, event) => threadDecider.evolve(folded, event),
    threadDecider.initialState,
  );
  return threadDecider.decide(command, state);
}

const created: ThreadEvent = {
  type: 'ThreadCreated',
  data: { thread_id: 't-1', metadata: {}, created_at: NOW },
};
const ttlSet: ThreadEvent = {
  type: 'ThreadTtlSet',
  data: { ttl_minutes: 30, strategy: 'delete', set_at: NOW },
};

describe('thread decider: TTL', () => {
  it('creates a thread with its TTL in the same decision', () => {
    expect(
      decide([], {
        kind: 'create',
        thread_id: 't-1',
        metadata: {},
        if_exists: 'raise',
        ttl: { ttl_minutes: 30 },
        now: NOW,
      }),
    ).toEqual([created, ttlSet]);
  });

  it('sets a TTL with a metadata update, and none without one', () => {
    const update = (ttl: { ttl_minutes: number } | null): ThreadCommand => ({
      kind: 'update_metadata',
      metadata: { a: 1 },
      ttl,
      now: NOW,
    });
    expect(decide([created], update({ ttl_minutes: 30 }))).toEqual([
      { type: 'ThreadMetadataUpdated', data: { metadata: { a: 1 }, updated_at: NOW } },
      ttlSet,
    ]);
    expect(decide([created], update(null))).toHaveLength(1);
  });

  it('expires a thread that has a TTL', () => {
    expect(decide([created, ttlSet], { kind: 'expire', thread_id: 't-1', now: NOW })).toEqual([
      { type: 'ThreadExpired', data: { thread_id: 't-1', ttl_minutes: 30, expired_at: NOW } },
    ]);
  });

  it('decides nothing for a thread gone already or without a TTL', () => {
    const expire: ThreadCommand = { kind: 'expire', thread_id: 't-1', now: NOW };
    expect(decide([], expire)).toEqual([]);
    expect(decide([created], expire)).toEqual([]);
    const expired: ThreadEvent = {
      type: 'ThreadExpired',
      data: { thread_id: 't-1', ttl_minutes: 30, expired_at: NOW },
    };
    expect(decide([created, ttlSet, expired], expire)).toEqual([]);
  });
});
