import { describe, expect, it } from '@jest/globals';
import { deciderSpecification } from '#libs/domain';
import type { ThreadCopiedData, ThreadEvent, ThreadStateUpdatedData } from './thread.events.js';
import { threadDecider, type ThreadCommand } from './thread.decider.js';

const NOW = '2026-02-01T00:00:00.000Z';
const LATER = '2026-02-02T00:00:00.000Z';
const thread = deciderSpecification(threadDecider);

const created: ThreadEvent = {
  type: 'ThreadCreated',
  data: { thread_id: 't-1', metadata: { owner: 'ann' }, created_at: NOW },
};
const ttlSet: ThreadEvent = {
  type: 'ThreadTtlSet',
  data: { ttl_minutes: 30, strategy: 'delete', set_at: NOW },
};
const deleted: ThreadEvent = {
  type: 'ThreadDeleted',
  data: { thread_id: 't-1', deleted_at: LATER },
};
const create = (overrides: Partial<Extract<ThreadCommand, { kind: 'create' }>> = {}) =>
  ({
    kind: 'create',
    thread_id: 't-1',
    metadata: { owner: 'ann' },
    if_exists: 'raise',
    ttl: null,
    now: NOW,
    ...overrides,
  }) satisfies ThreadCommand;
const update: ThreadStateUpdatedData = {
  values: { messages: [] },
  next: [],
  interrupts: {},
  checkpoint_id: 'cp-1',
  as_node: null,
  updated_at: LATER,
};
const stateUpdate: ThreadCommand = { kind: 'record_state_update', update };
const copied: ThreadCopiedData = {
  thread_id: 't-1',
  copied_from: 't-0',
  metadata: {},
  values: null,
  interrupts: {},
  status: 'idle',
  created_at: LATER,
};
const copy: ThreadCommand = { kind: 'copy', copy: copied };

describe('thread decider: life', () => {
  it('creates a thread once; a second create is a conflict unless it asks to do nothing', () => {
    thread.given([]).when(create()).then([created]);
    thread
      .given([created])
      .when(create())
      .thenFails('conflict', /Thread t-1 already exists/);
    thread
      .given([created])
      .when(create({ if_exists: 'do_nothing' }))
      .then([]);
  });

  it('creates again a thread that was deleted', () => {
    thread.given([created, deleted]).when(create()).then([created]);
  });

  it('merges metadata updates into what the thread had', () => {
    const state = thread
      .given([created])
      .when({ kind: 'update_metadata', metadata: { topic: 'x' }, ttl: null, now: LATER })
      .state();
    expect(state.metadata).toEqual({ owner: 'ann', topic: 'x' });
  });

  it('refuses to update, delete or record state on a thread that does not exist', () => {
    const update: ThreadCommand = { kind: 'update_metadata', metadata: {}, ttl: null, now: NOW };
    thread
      .given([])
      .when(update)
      .thenFails('not_found', /Thread not found/);
    thread
      .given([created, deleted])
      .when(update)
      .thenFails('not_found', /Thread not found/);
    thread
      .given([])
      .when({ kind: 'delete', thread_id: 't-1', now: NOW })
      .thenFails('not_found', /Thread t-1 not found/);
    thread
      .given([])
      .when(stateUpdate)
      .thenFails('not_found', /Thread not found/);
  });

  it('records a state update as it was made', () => {
    thread
      .given([created])
      .when(stateUpdate)
      .then([{ type: 'ThreadStateUpdated', data: update }]);
  });

  it('copies into a new thread only', () => {
    thread
      .given([])
      .when(copy)
      .then([{ type: 'ThreadCopied', data: copied }]);
    thread
      .given([created])
      .when(copy)
      .thenFails('conflict', /Thread t-1 already exists/);
  });
});

describe('thread decider: TTL', () => {
  it('creates a thread with its TTL in the same decision', () => {
    thread
      .given([])
      .when(create({ ttl: { ttl_minutes: 30 } }))
      .then([created, ttlSet]);
  });

  it('sets a TTL with a metadata update, and none without one', () => {
    const update = (ttl: { ttl_minutes: number } | null): ThreadCommand => ({
      kind: 'update_metadata',
      metadata: { a: 1 },
      ttl,
      now: NOW,
    });
    thread
      .given([created])
      .when(update({ ttl_minutes: 30 }))
      .then([
        { type: 'ThreadMetadataUpdated', data: { metadata: { a: 1 }, updated_at: NOW } },
        ttlSet,
      ]);
    expect(thread.given([created]).when(update(null)).events()).toHaveLength(1);
  });

  it('expires a thread that has a TTL', () => {
    thread
      .given([created, ttlSet])
      .when({ kind: 'expire', thread_id: 't-1', now: NOW })
      .then([
        { type: 'ThreadExpired', data: { thread_id: 't-1', ttl_minutes: 30, expired_at: NOW } },
      ]);
  });

  it('decides nothing for a thread gone already or without a TTL', () => {
    const expire: ThreadCommand = { kind: 'expire', thread_id: 't-1', now: NOW };
    const expired: ThreadEvent = {
      type: 'ThreadExpired',
      data: { thread_id: 't-1', ttl_minutes: 30, expired_at: NOW },
    };
    thread.given([]).when(expire).then([]);
    thread.given([created]).when(expire).then([]);
    thread.given([created, ttlSet, expired]).when(expire).then([]);
  });
});
