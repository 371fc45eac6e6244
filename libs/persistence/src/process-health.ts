import type { ObjectLiteral } from 'typeorm';
import { databaseAvailability, isDatabaseUnavailable, type DatabaseState } from '#libs/database';
import {
  describeProjectionFailure,
  type ProjectionFailure,
  type ProjectionRunner,
} from '#libs/event-store';
import { projectionHealth } from './projection-health.js';

/**
 * `GET /ok`: 200 `{ok: true}` while the database answers and every read model follows the log;
 * 503 `{ok: false, detail, failing, database?}` while the database cannot be reached (`database`
 * says since when and why) or a read model is stuck on an event it cannot apply (`failing`).
 * Never slower than a short probe: an outage already known is answered at once.
 */
export type ProcessHealth =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly detail: string;
      readonly failing: ProjectionFailure[];
      readonly database?: Extract<DatabaseState, { ok: false }>;
    };

export async function processHealth(
  runners: readonly Pick<ProjectionRunner<ObjectLiteral>, 'failure'>[],
): Promise<ProcessHealth> {
  const [database, projections] = [await databaseAvailability.check(), projectionHealth(runners)];
  if (database.ok) return projections;
  // Read models that fail because the database is gone are not news of their own.
  const failing = projections.ok
    ? []
    : projections.failing.filter((failure) => !isDatabaseUnavailable(failure.error));
  const detail = [
    `the database is unavailable (since ${database.since}): ${database.error}`,
    ...failing.map(describeProjectionFailure),
  ].join('; ');
  return { ok: false, detail, failing, database };
}
