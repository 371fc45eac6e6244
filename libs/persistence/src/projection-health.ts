import type { ObjectLiteral } from 'typeorm';
import {
  describeProjectionFailure,
  type ProjectionFailure,
  type ProjectionRunner,
} from '#libs/event-store';

/**
 * `GET /ok`: 200 `{ok: true}` while every read model follows the log; 503 with `{ok: false,
 * detail, failing}` while one is stuck on an event it cannot apply (named in `failing`), since
 * the process cannot answer what reads it. Monitoring and load balancers see it as unhealthy.
 */
export type ProjectionHealth =
  | { readonly ok: true }
  | { readonly ok: false; readonly detail: string; readonly failing: ProjectionFailure[] };

export function projectionHealth(
  runners: readonly Pick<ProjectionRunner<ObjectLiteral>, 'failure'>[],
): ProjectionHealth {
  const failing = runners.flatMap((runner) => (runner.failure ? [runner.failure] : []));
  if (failing.length === 0) return { ok: true };
  return { ok: false, detail: failing.map(describeProjectionFailure).join('; '), failing };
}
