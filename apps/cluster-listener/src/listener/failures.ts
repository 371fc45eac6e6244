import { ConnectionBudgetExceededError } from '#libs/deployment-databases';
import { ApiError } from '#libs/control-plane-client';
import { KubeApiError } from '../kube/kube-api-error.js';

/** A failure of a revision itself, reported as `DEPLOY_FAILED`: trying again would not mend it. */
export class RevisionFailure extends Error {
  override readonly name = 'RevisionFailure';
}

/** Whether a failure is the revision's own (report it) rather than the moment's (try again). */
export function revisionFailureOf(error: unknown): RevisionFailure | undefined {
  if (error instanceof RevisionFailure) return error;
  if (error instanceof KubeApiError && error.permanent) return new RevisionFailure(error.message);
  if (error instanceof ConnectionBudgetExceededError) return new RevisionFailure(error.message);
  return undefined;
}

/** Whether the control plane refused a report for good (the revision moved on meanwhile). */
export const isRefusedReport = (error: unknown): boolean =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429;

export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
