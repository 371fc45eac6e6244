import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { JsonValue } from '#libs/domain';
import {
  createsResource,
  isResourceErasure,
  isResourceSkeletonField,
  resourceScopeOf,
  resourceStreamOf,
  storeItemScope,
  type ResourceStreamOf,
} from './resource-content.js';

type FieldCase = readonly [ResourceStreamOf, string, JsonValue];

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe("a store item's, a cron's and an assistant's content and its skeleton", () => {
  it('finds the resource of its stream, and the scope of its key', () => {
    const store = resourceStreamOf('store-users.alice');
    expect(store).toEqual({ kind: 'store' });
    expect(resourceStreamOf('cron-c1')).toEqual({ kind: 'cron', cronId: 'c1' });
    expect(resourceStreamOf('assistant-a1')).toEqual({ kind: 'assistant', assistantId: 'a1' });
    expect(resourceStreamOf('thread-t1')).toBeUndefined();
    expect(resourceScopeOf({ kind: 'cron', cronId: 'c1' }, {})).toBe('cron:c1');
    expect(resourceScopeOf({ kind: 'assistant', assistantId: 'a1' }, {})).toBe('assistant:a1');
    if (!store) throw new Error('no store stream');
    expect(resourceScopeOf(store, { namespace: ['users', 'alice'], key: 'k' })).toBe(
      `store:${sha256('users.alice')}:${sha256('k')}`,
    );
    expect(resourceScopeOf(store, { namespace: ['users'] })).toBeUndefined();
  });

  it('names a store item by digests: the key store holds neither its namespace nor its key', () => {
    const scope = storeItemScope(['users', 'alice@example.com'], 'card 4111');
    expect(scope).not.toContain('alice');
    expect(scope).not.toContain('4111');
    expect(storeItemScope(['a:b'], 'c')).not.toBe(storeItemScope(['a'], 'b:c'));
  });

  it('keeps addresses, ids, times and schedules in clear, and the content encrypted', () => {
    const store = { kind: 'store' } as const;
    const cron = { kind: 'cron', cronId: 'c1' } as const;
    const assistant = { kind: 'assistant', assistantId: 'a1' } as const;
    for (const [stream, field, value] of [
      [store, 'namespace', ['users']],
      [store, 'key', 'k'],
      [store, 'ttl_minutes', 5],
      [store, 'put_at', '2026-01-01T00:00:00Z'],
      [cron, 'schedule', '* * * * *'],
      [cron, 'next_run_date', null],
      [cron, 'assistant_id', 'a1'],
      [assistant, 'graph_id', 'agent'],
      [assistant, 'version', 2],
    ] satisfies FieldCase[]) {
      expect(isResourceSkeletonField(stream, field, value)).toBe(true);
    }
    for (const [stream, field, value] of [
      [store, 'value', { text: 'x' }],
      [store, 'vectors', { $: [0.1] }],
      [cron, 'payload', { input: {} }],
      [cron, 'metadata', {}],
      [cron, 'changes', { schedule: '* * * * *' }],
      [assistant, 'name', 'my assistant'],
      [assistant, 'description', null],
      [assistant, 'config', {}],
      [assistant, 'context', {}],
      [assistant, 'metadata', {}],
    ] satisfies FieldCase[]) {
      expect(isResourceSkeletonField(stream, field, value)).toBe(false);
    }
  });

  it('knows the deletions that destroy a key, and the events that make one', () => {
    const store = { kind: 'store' } as const;
    expect(isResourceErasure(store, 'StoreItemDeleted')).toBe(true);
    expect(isResourceErasure(store, 'StoreItemExpired')).toBe(true);
    expect(isResourceErasure(store, 'StoreItemPut')).toBe(false);
    expect(isResourceErasure({ kind: 'cron', cronId: 'c' }, 'CronDeleted')).toBe(true);
    expect(isResourceErasure({ kind: 'assistant', assistantId: 'a' }, 'AssistantDeleted')).toBe(
      true,
    );
    expect(createsResource(store, 'StoreItemPut')).toBe(true);
    expect(createsResource({ kind: 'assistant', assistantId: 'a' }, 'AssistantVersioned')).toBe(
      false,
    );
  });
});
