import { describe, expect, it } from '@jest/globals';
import { mergeContainment } from './auth-values.js';
import {
  AuthRejection,
  CustomAuth,
  filtersAsContainment,
  matchesFilters,
  type AuthContext,
} from './custom-auth.js';

const alice: AuthContext = {
  kind: 'user',
  user: { identity: 'alice', display_name: 'alice', permissions: [], is_authenticated: true },
  scopes: [],
};

describe('CustomAuth', () => {
  it('normalises what authenticate returns into a user', async () => {
    const auth = new CustomAuth({ authenticate: () => ({ identity: 'bob', permissions: ['x'] }) });
    expect(await auth.authenticate(new Request('http://h/'))).toEqual({
      kind: 'user',
      user: { identity: 'bob', display_name: 'bob', permissions: ['x'], is_authenticated: true },
      scopes: ['x'],
    });
    const named = new CustomAuth({ authenticate: () => 'carol' });
    expect(await named.authenticate(new Request('http://h/'))).toMatchObject({
      user: { identity: 'carol' },
    });
  });

  it("turns the SDK's HTTPException into a rejection with its status", async () => {
    const auth = new CustomAuth({
      authenticate: () => {
        throw Object.assign(new Error('nope'), { status: 418, headers: { 'x-why': 'tea' } });
      },
    });
    const refused = auth.authenticate(new Request('http://h/'));
    await expect(refused).rejects.toBeInstanceOf(AuthRejection);
    await expect(refused).rejects.toMatchObject({ status: 418, message: 'nope' });
  });

  it('runs the most specific handler: resource:action, resource, *:action, *', async () => {
    const calls: string[] = [];
    const handler = (name: string) => () => {
      calls.push(name);
      return { by: name };
    };
    const auth = new CustomAuth({
      callbacks: { threads: handler('threads'), '*:read': handler('*:read'), '*': handler('*') },
    });
    expect(await auth.authorize(alice, 'threads', 'read', {})).toEqual({ by: 'threads' });
    expect(await auth.authorize(alice, 'assistants', 'read', {})).toEqual({ by: '*:read' });
    expect(await auth.authorize(alice, 'assistants', 'delete', {})).toEqual({ by: '*' });
    expect(await auth.authorize({ kind: 'platform' }, 'threads', 'read', {})).toBeUndefined();
    expect(calls).toEqual(['threads', '*:read', '*']);
  });

  it('reads false as 403, true and nothing as no filter, and refuses other answers', async () => {
    const answering = (answer: unknown): CustomAuth =>
      new CustomAuth({ callbacks: { '*': () => answer } });
    await expect(answering(false).authorize(alice, 'threads', 'read', {})).rejects.toMatchObject({
      status: 403,
    });
    expect(await answering(true).authorize(alice, 'threads', 'read', {})).toBeUndefined();
    expect(await answering(undefined).authorize(alice, 'threads', 'read', {})).toBeUndefined();
    await expect(answering('yes').authorize(alice, 'threads', 'read', {})).rejects.toThrow(
      /returned string/,
    );
  });
});

describe('auth filters', () => {
  it('match metadata by equality, $eq and $contains', () => {
    const metadata = { owner: 'alice', tags: ['a', 'b'], n: 1 };
    expect(matchesFilters(metadata, { owner: 'alice' })).toBe(true);
    expect(matchesFilters(metadata, { owner: { $eq: 'bob' } })).toBe(false);
    expect(matchesFilters(metadata, { tags: { $contains: 'a' } })).toBe(true);
    expect(matchesFilters(metadata, { tags: { $contains: ['a', 'c'] } })).toBe(false);
    expect(matchesFilters(metadata, { owner: { $contains: 'a' } })).toBe(false);
    expect(matchesFilters({}, { owner: 'alice' })).toBe(false);
  });

  it('become one JSON containment, unless an equality is on an object', () => {
    expect(filtersAsContainment({ owner: { $eq: 'a' }, tags: { $contains: 'x' }, n: 2 })).toEqual({
      owner: 'a',
      tags: ['x'],
      n: 2,
    });
    expect(filtersAsContainment({ profile: { plan: 'free' } })).toBeUndefined();
  });

  it("merge into a search's own metadata filter, or say nothing can match", () => {
    expect(mergeContainment({ topic: 'tea' }, { owner: 'a' })).toEqual({
      topic: 'tea',
      owner: 'a',
    });
    expect(mergeContainment({ tags: ['x'] }, { tags: ['y'] })).toEqual({ tags: ['x', 'y'] });
    expect(mergeContainment({ owner: 'a' }, { owner: 'a' })).toEqual({ owner: 'a' });
    expect(mergeContainment({ owner: 'b' }, { owner: 'a' })).toBeUndefined();
  });
});
