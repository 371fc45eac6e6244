import { describe, expect, it } from '@jest/globals';
import type { ThreadRow } from './thread.entity.js';
import { evolveThreadRow, threadsProjection } from './threads.projection.js';

const AT = new Date('2026-01-01T00:00:00Z');

function thread(overrides: Partial<ThreadRow> = {}): ThreadRow {
  return {
    thread_id: 't-1',
    created_at: AT,
    updated_at: AT,
    metadata: { graph_id: 'g' },
    status: 'interrupted',
    config: {},
    values: { a: 1 },
    interrupts: { task: [{ value: 'q' }] },
    inflight_runs: [],
    ttl_minutes: null,
    ...overrides,
  };
}

const stateUpdated = (next: string[], interrupts = {}) =>
  ({
    type: 'ThreadStateUpdated',
    data: {
      checkpoint_id: 'c-2',
      as_node: 'review',
      values: { a: 2 },
      next,
      interrupts,
      updated_at: '2026-01-02T00:00:00Z',
    },
  }) as const;

describe('threads projection', () => {
  it('keeps the TTL a thread is given, as an update of it', () => {
    const row = evolveThreadRow(
      thread({ status: 'idle' }),
      {
        type: 'ThreadTtlSet',
        data: { ttl_minutes: 5, strategy: 'delete', set_at: '2026-01-05T00:00:00Z' },
      },
      AT,
    );
    expect(row).toMatchObject({ ttl_minutes: 5, updated_at: new Date('2026-01-05T00:00:00Z') });
  });

  it('drops an expired thread', () => {
    const expired = {
      type: 'ThreadExpired',
      data: { thread_id: 't-1', ttl_minutes: 5, expired_at: '2026-01-05T00:00:00Z' },
    } as const;
    expect(evolveThreadRow(thread(), expired, AT)).toBeUndefined();
  });

  it('takes the values and interrupts of a state update; interrupted while nodes remain', () => {
    const row = evolveThreadRow(thread(), stateUpdated(['publish']), AT);
    expect(row).toMatchObject({
      status: 'interrupted',
      values: { a: 2 },
      interrupts: {},
      updated_at: new Date('2026-01-02T00:00:00Z'),
    });
  });

  it('is idle after a state update that leaves nothing to run', () => {
    expect(evolveThreadRow(thread(), stateUpdated([]), AT)?.status).toBe('idle');
  });

  it('ignores a state update of a thread it does not have', () => {
    expect(evolveThreadRow(undefined, stateUpdated([]), AT)).toBeUndefined();
  });

  it('makes a copied thread with the state of its source and no runs', () => {
    const row = evolveThreadRow(
      undefined,
      {
        type: 'ThreadCopied',
        data: {
          thread_id: 't-2',
          copied_from: 't-1',
          metadata: { graph_id: 'g', thread_id: 't-2' },
          values: { a: 1 },
          interrupts: { task: [] },
          status: 'interrupted',
          created_at: '2026-01-03T00:00:00Z',
        },
      },
      AT,
    );
    expect(row).toEqual({
      thread_id: 't-2',
      created_at: new Date('2026-01-03T00:00:00Z'),
      updated_at: new Date('2026-01-03T00:00:00Z'),
      metadata: { graph_id: 'g', thread_id: 't-2' },
      status: 'interrupted',
      config: {},
      values: { a: 1 },
      interrupts: { task: [] },
      inflight_runs: [],
      ttl_minutes: null,
    });
  });

  it('makes anew, ignoring the row it is given, only on the events it declares so', () => {
    const created = {
      type: 'ThreadCreated',
      data: { thread_id: 't-1', metadata: {}, created_at: '2026-01-03T00:00:00Z' },
    } as const;
    const copied = {
      type: 'ThreadCopied',
      data: {
        thread_id: 't-1',
        copied_from: 't-0',
        metadata: {},
        values: null,
        interrupts: {},
        status: 'idle',
        created_at: '2026-01-03T00:00:00Z',
      },
    } as const;
    for (const event of [created, copied]) {
      expect(threadsProjection.makesRowAnew?.has(event.type)).toBe(true);
      expect(evolveThreadRow(thread(), event, AT)).toEqual(evolveThreadRow(undefined, event, AT));
    }
    expect([...(threadsProjection.makesRowAnew ?? [])].sort()).toEqual([
      'ThreadCopied',
      'ThreadCreated',
    ]);
  });
});
