import type { JsonObject } from '#libs/domain';
import type { AuthContext } from './custom-auth.js';

/** Who a run runs for: a user of the application's auth, or the creator of a cron's tick. */
export interface RunCaller {
  readonly identity: string;
  /** The user as `authenticate` returned it (as JSON); null for a cron's tick. */
  readonly user: JsonObject | null;
  readonly permissions: readonly string[] | null;
}

/** What stays with a queued run, out of the event log, until it has run. */
export interface QueuedCaller extends JsonObject {
  user: JsonObject;
  permissions: string[];
}

const USER = 'langgraph_auth_user';
const USER_ID = 'langgraph_auth_user_id';
const PERMISSIONS = 'langgraph_auth_permissions';

export function runCallerOf(who: AuthContext | undefined): RunCaller | undefined {
  if (who?.kind !== 'user') return undefined;
  // As JSON now, so that the graph sees the same user whichever process runs it, and when.
  const user = JSON.parse(JSON.stringify(who.user)) as JsonObject;
  return { identity: who.user.identity, user, permissions: [...who.scopes] };
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
  return { ...recorded, user_id: recorded.user_id ?? caller.identity, [USER_ID]: caller.identity };
}

export function queuedCallerOf(caller: RunCaller | undefined): QueuedCaller | null {
  if (!caller?.user) return null;
  return { user: caller.user, permissions: [...(caller.permissions ?? [])] };
}

/** What the graph reads of its user at execution, as the JS server puts it in `configurable`. */
export function callerConfigurable(caller: QueuedCaller | null): JsonObject {
  return caller ? { [USER]: caller.user, [PERMISSIONS]: caller.permissions } : {};
}
