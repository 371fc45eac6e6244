import { describe, expect, it } from '@jest/globals';
import type { RecordedEvent } from '#libs/event-store';
import { LOG_START } from '#libs/event-store';
import { deciderSpecification } from '#libs/domain';
import { storeDecider, type StoreItemState, type StoreWrite } from './store.decider.js';
import type { StoreEvent } from './store.events.js';
import { storeProjection } from './store.projection.js';
import type { StoreItemRow } from './store-item.entity.js';

const ns = ['users', 'u1'];
const T0 = '2026-01-01T00:00:00.000Z';
const at = (minutes: number): string => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

function recorded(event: StoreEvent): RecordedEvent {
  return {
    eventId: '00000000-0000-7000-8000-000000000000',
    type: event.type,
    streamId: 'store-users.u1',
    streamPosition: 0,
    logPosition: LOG_START,
    data: event.data,
    metadata: {},
    recordedAt: new Date(T0),
  };
}

function fold(events: StoreEvent[], row?: StoreItemRow): StoreItemRow | undefined {
  return events.reduce<StoreItemRow | undefined>(
    (current, event) => storeProjection.evolve(current, recorded(event)),
    row,
  );
}

/** The decision on a write made at `now`, for the item as given. */
const decideStore = (write: StoreWrite, item: StoreItemState | undefined, now: string) =>
  storeDecider.decide({ ...write, now }, item ?? null);

const put = (ttlMinutes: number | null, now: string): StoreEvent[] =>
  decideStore(
    { kind: 'put', namespace: ns, key: 'k', value: { a: 1 }, vectors: null, ttlMinutes },
    undefined,
    now,
  );

describe('the store decider and its read model', () => {
  it('keeps created_at across puts and sets the expiry from the TTL', () => {
    const row = fold([...put(10, T0), ...put(10, at(5))]);
    expect(row?.created_at.toISOString()).toBe(T0);
    expect(row?.updated_at.toISOString()).toBe(at(5));
    expect(row?.expires_at?.toISOString()).toBe(at(15));
    expect(fold(put(null, T0))?.expires_at).toBeNull();
  });

  it('refreshes only items with a TTL, pushing the expiry back', () => {
    const row = fold(put(10, T0));
    const state = { ttlMinutes: 10, expiresAt: at(10) };
    const refreshed = decideStore({ kind: 'refresh_ttl', namespace: ns, key: 'k' }, state, at(4));
    expect(fold(refreshed, row)?.expires_at?.toISOString()).toBe(at(14));
    expect(
      decideStore(
        { kind: 'refresh_ttl', namespace: ns, key: 'k' },
        { ttlMinutes: null, expiresAt: null },
        at(4),
      ),
    ).toEqual([]);
  });

  it('expires an item only once its expiry passed, and only the expiry it saw', () => {
    const seen = { ttlMinutes: 10, expiresAt: at(10) };
    expect(decideStore({ kind: 'expire', namespace: ns, key: 'k' }, seen, at(9))).toEqual([]);
    const expired = decideStore({ kind: 'expire', namespace: ns, key: 'k' }, seen, at(11));
    expect(fold(expired, fold(put(10, T0)))).toBeUndefined();
    // Written again after the sweeper looked: the new item outlives the old expiry.
    const rewritten = fold(put(10, at(10.5)), fold(put(10, T0)));
    expect(fold(expired, rewritten)?.expires_at?.toISOString()).toBe(at(20.5));
  });

  it('deletes whether or not the item exists', () => {
    const deleted = decideStore({ kind: 'delete', namespace: ns, key: 'k' }, undefined, T0);
    expect(deleted.map((event) => event.type)).toEqual(['StoreItemDeleted']);
    expect(fold(deleted, fold(put(null, T0)))).toBeUndefined();
  });
});

describe('the store decider, on what the store_items read model cannot hold', () => {
  const putOf = (namespace: unknown, key: unknown, value: unknown) => () =>
    decideStore(
      {
        kind: 'put',
        namespace: namespace as string[],
        key: key as string,
        value: value as Record<string, never>,
        vectors: null,
        ttlMinutes: null,
      },
      undefined,
      T0,
    );

  it.each([
    [
      'a long namespace',
      ['x'.repeat(600), 'y'.repeat(600)],
      'k',
      {},
      /^namespace must be at most 1000 bytes/,
    ],
    ['a null label', ['a', null], 'k', {}, /^namespace must be a string, not null/],
    ['a null key', ns, null, {}, /^key must be a string, not null/],
    ['a null value', ns, 'k', null, /^value must be an object, not null/],
    ['a list as value', ns, 'k', [], /^value must be an object, not a list/],
  ])('refuses %s', (_, namespace, key, value, message) => {
    expect(putOf(namespace, key, value)).toThrow(message);
  });

  it('puts an item whose namespace is just within the bound', () => {
    expect(putOf(['x'.repeat(499), 'y'.repeat(500)], '', {})()).toHaveLength(1);
  });
});

describe('one store item as a decider: given its events, when a write, then', () => {
  const item = deciderSpecification(storeDecider);
  const key = { namespace: ns, key: 'k' };

  it('refreshes the expiry its last put or refresh set, and nothing without a TTL', () => {
    item
      .given([...put(10, T0)])
      .when({ kind: 'refresh_ttl', ...key, now: at(4) })
      .then([{ type: 'StoreItemTtlRefreshed', data: { ...key, expires_at: at(14) } }]);
    item
      .given([
        ...put(10, T0),
        { type: 'StoreItemTtlRefreshed', data: { ...key, expires_at: at(14) } },
      ])
      .when({ kind: 'expire', ...key, now: at(12) })
      .then([]);
    item
      .given([...put(null, T0)])
      .when({ kind: 'refresh_ttl', ...key, now: at(4) })
      .then([]);
  });

  it('expires only an item that is there, once its expiry passed', () => {
    item
      .given([...put(10, T0)])
      .when({ kind: 'expire', ...key, now: at(11) })
      .then([
        { type: 'StoreItemExpired', data: { ...key, expires_at: at(10), expired_at: at(11) } },
      ]);
    const gone = [
      ...put(10, T0),
      { type: 'StoreItemDeleted', data: { ...key, deleted_at: at(1) } },
    ];
    item
      .given(gone as StoreEvent[])
      .when({ kind: 'expire', ...key, now: at(11) })
      .then([]);
  });
});
