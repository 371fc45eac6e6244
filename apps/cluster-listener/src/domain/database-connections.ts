import { MIN_RUNTIME_CONNECTIONS } from '#libs/deployment-databases';
import type { EffectiveResources } from './resource-defaults.js';

/** PostgreSQL's `superuser_reserved_connections` by default: never a runtime's. */
const RESERVED_BY_SERVER = 3;
/** What the runtime opens at most without a budget: its default pools and two LISTEN connections. */
const RUNTIME_DEFAULT_CONNECTIONS = 32;

/** The most runtime pods of a deployment at once: both at their maximum, each with a surge pod. */
export const runtimePodsAtMost = (resources: EffectiveResources): number =>
  resources.api.maxReplicas + resources.queue.maxReplicas + 2;

/**
 * Each runtime pod's `BERTH_DATABASE_CONNECTIONS`: the database's `db_max_connections` shared by
 * the most pods the deployment can have at once, so that autoscaling and a rollout never exhaust
 * it; no more than the runtime would open without a budget.
 */
export function connectionsPerPod(resources: EffectiveResources): number {
  const usable = resources.database.maxConnections - RESERVED_BY_SERVER;
  return Math.min(RUNTIME_DEFAULT_CONNECTIONS, Math.floor(usable / runtimePodsAtMost(resources)));
}

/** Why the database cannot serve the most pods the spec allows; undefined when it can. */
export function connectionProblem(resources: EffectiveResources): string | undefined {
  const perPod = connectionsPerPod(resources);
  if (perPod >= MIN_RUNTIME_CONNECTIONS) return undefined;
  const pods = runtimePodsAtMost(resources);
  const needed = pods * MIN_RUNTIME_CONNECTIONS + RESERVED_BY_SERVER;
  return (
    `db_max_connections ${resources.database.maxConnections} is too few for up to ${pods} runtime ` +
    `pods (max_scale and queue_max_scale, and one more of each during a rollout), each needing ` +
    `${MIN_RUNTIME_CONNECTIONS}: raise db_max_connections to ${needed} or lower the scales`
  );
}
