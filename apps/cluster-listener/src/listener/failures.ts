import { ApiError } from '#libs/control-plane-client';
import { ConfigError } from '#libs/config';
import { ConnectionBudgetExceededError } from '#libs/deployment-databases';
import { KubeApiError } from '../kube/kube-api-error.js';

/** A failure of a revision itself, reported as `DEPLOY_FAILED`: trying again would not mend it. */
export class RevisionFailure extends Error {
  override readonly name = 'RevisionFailure';
}

/**
 * Whether trying again may mend a failure: no answer, a server's fault, throttling, a conflict,
 * anything unforeseen. Not: a refusal of the control plane or of the Kubernetes API, a revision's
 * own failure, a setting to mend, a database server without room.
 */
export function isMomentary(error: unknown): boolean {
  if (error instanceof ApiError) {
    return error.status === 0 || error.status >= 500 || error.status === 429;
  }
  if (error instanceof KubeApiError) return !error.permanent;
  return !(
    error instanceof RevisionFailure ||
    error instanceof ConnectionBudgetExceededError ||
    error instanceof ConfigError
  );
}

/** A failure of a task that trying again will not mend, as the revision's failure. */
export function revisionFailureOf(error: unknown): RevisionFailure | undefined {
  if (isMomentary(error)) return undefined;
  return error instanceof RevisionFailure ? error : new RevisionFailure(messageOf(error));
}

export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
