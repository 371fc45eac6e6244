import { describe, expect, it } from '@jest/globals';
import {
  callerConfigurable,
  cronCaller,
  queuedCallerOf,
  recordedConfigurable,
  runCallerOf,
} from './run-caller.js';

const who = {
  kind: 'user',
  user: {
    identity: 'ann',
    display_name: 'Ann',
    permissions: ['chat'],
    is_authenticated: true,
    since: new Date('2026-01-01T00:00:00Z'),
  },
  scopes: ['chat'],
} as const;
const ann = { identity: 'ann', user: { identity: 'ann' }, permissions: ['chat'] };

describe('the user a run is for', () => {
  it('is the authenticated user as JSON, with its permissions; none for the platform', () => {
    const caller = runCallerOf(who);
    expect(caller).toEqual({
      identity: 'ann',
      user: {
        identity: 'ann',
        display_name: 'Ann',
        permissions: ['chat'],
        is_authenticated: true,
        since: '2026-01-01T00:00:00.000Z',
      },
      permissions: ['chat'],
    });
    expect(runCallerOf({ kind: 'platform' })).toBeUndefined();
    expect(runCallerOf(undefined)).toBeUndefined();
  });

  it("is recorded by id alone, over whatever the request's config claimed", () => {
    const recorded = recordedConfigurable(
      {
        user_id: null,
        langgraph_auth_user_id: 'bob',
        langgraph_auth_user: { identity: 'bob' },
        langgraph_auth_permissions: ['admin'],
        model: 'x',
      },
      ann,
    );
    expect(recorded).toEqual({ user_id: 'ann', langgraph_auth_user_id: 'ann', model: 'x' });
    expect(
      recordedConfigurable({ user_id: 'u-1' }, { identity: 'ann', user: null, permissions: null }),
    ).toEqual({
      user_id: 'u-1',
      langgraph_auth_user_id: 'ann',
    });
  });

  it('is queued with its user and permissions, and given to the graph from there', () => {
    const queued = queuedCallerOf(runCallerOf(who));
    expect(callerConfigurable(queued)).toEqual({
      langgraph_auth_user: queued?.user,
      langgraph_auth_permissions: ['chat'],
    });
    // A cron's tick knows its user by id only: nothing is queued, nothing added at execution.
    expect(queuedCallerOf(cronCaller('ann'))).toBeNull();
    expect(cronCaller(null)).toBeUndefined();
    expect(callerConfigurable(null)).toEqual({});
  });
});
