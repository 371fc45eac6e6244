import type { JsonObject } from '#libs/domain';
import type { AuthContext } from './custom-auth.js';

/**
 * Who a run runs for (a user of the application's auth, the creator of a cron's tick, or the
 * platform: identity null) and the request headers its graph reads in `configurable`.
 */
export interface RunCaller {
  readonly identity: string | null;
  /** The user as `authenticate` returned it (as JSON); null for a cron's tick. */
  readonly user: JsonObject | null;
  readonly permissions: readonly string[] | null;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What stays with a queued run, out of the event log, until it has run. */
export type QueuedCaller = {
  user?: JsonObject;
  permissions?: string[];
  headers?: Record<string, string>;
};

const USER = 'langgraph_auth_user';
const USER_ID = 'langgraph_auth_user_id';
const PERMISSIONS = 'langgraph_auth_permissions';

export function runCallerOf(
  who: AuthContext | undefined,
  headers: Readonly<Record<string, string>> = {},
): RunCaller | undefined {
  const passed = Object.keys(headers).length > 0 ? headers : undefined;
  if (who?.kind !== 'user') {
    return passed && { identity: null, user: null, permissions: null, headers: passed };
  }
  // As JSON now, so that the graph sees the same user whichever process runs it, and when.
  const user = JSON.parse(JSON.stringify(who.user)) as JsonObject;
  return { identity: who.user.identity, user, permissions: [...who.scopes], headers: passed };
}

/** A cron's tick runs for the user who made the cron, known by identity alone. */
export function cronCaller(userId: string | null): RunCaller | undefined {
  return userId === null ? undefined : { identity: userId, user: null, permissions: null };
}

/**
 * The run's recorded `configurable` with a caller: its identity as `langgraph_auth_user_id` (and
 * `user_id`, unless the config names one), none of the caller's keys the request itself sent.
 */
export function recordedConfigurable(configurable: JsonObject, caller: RunCaller): JsonObject {
  const recorded = Object.fromEntries(
    Object.entries(configurable).filter(([key]) => key !== USER && key !== PERMISSIONS),
  );
  if (caller.identity === null) return recorded;
  return { ...recorded, user_id: recorded.user_id ?? caller.identity, [USER_ID]: caller.identity };
}

export function queuedCallerOf(caller: RunCaller | undefined): QueuedCaller | null {
  const queued: QueuedCaller = {};
  if (caller?.user) {
    queued.user = caller.user;
    queued.permissions = [...(caller.permissions ?? [])];
  }
  if (caller?.headers) queued.headers = { ...caller.headers };
  return Object.keys(queued).length > 0 ? queued : null;
}

/**
 * What the graph reads in `configurable` at execution, as the JS server puts it there: the
 * request's headers, then its user (which no header can stand in for).
 */
export function callerConfigurable(caller: QueuedCaller | null): JsonObject {
  if (!caller) return {};
  const configurable: JsonObject = { ...caller.headers };
  if (caller.user) {
    configurable[USER] = caller.user;
    configurable[PERMISSIONS] = caller.permissions ?? [];
  }
  return configurable;
}
