/** What the database server allows, and what is kept off it for others than deployments. */
export interface ServerConnections {
  /** `max_connections`. */
  readonly max: number;
  /** `superuser_reserved_connections` plus `reserved_connections` (PostgreSQL 16): never a deployment's. */
  readonly reservedByServer: number;
  /** `BERTH_DB_RESERVED_CONNECTIONS`: kept for the platform's own processes. */
  readonly reservedForPlatform: number;
}

export interface ConnectionRequest {
  /** The CONNECTION LIMIT the deployment's role is to have. */
  readonly requested: number;
  /** Its role's limit now, when it has a role already (it was admitted before). */
  readonly current: number | undefined;
  /** The sum of the other deployments' roles' limits on the server. */
  readonly othersGranted: number;
  /** Where `requested` was set, named when it is refused. */
  readonly requestedBy?: string;
}

export type Admission =
  | { readonly admitted: true; readonly capacity: number }
  | { readonly admitted: false; readonly capacity: number; readonly reason: string };

/** How many connections deployments' roles may hold between them on this server. */
export const deploymentCapacity = (server: ServerConnections): number =>
  Math.max(0, server.max - server.reservedByServer - server.reservedForPlatform);

/**
 * Whether a deployment's role may be given `requested` connections: yes when the limits of all
 * the deployments' roles then still add up to the capacity at most. A role that already exists
 * keeps its place however full the server is (lowered or kept, never raised past the capacity):
 * a change of settings never stops a deployment that runs; only a newcomer is refused.
 */
export function admitConnections(server: ServerConnections, request: ConnectionRequest): Admission {
  const capacity = deploymentCapacity(server);
  if (request.othersGranted + request.requested <= capacity) return { admitted: true, capacity };
  if (request.current !== undefined && request.requested <= request.current) {
    return { admitted: true, capacity };
  }
  const left = Math.max(0, capacity - request.othersGranted);
  return {
    admitted: false,
    capacity,
    reason:
      `The database server has no room for this deployment's ${request.requested} connections ` +
      `(${request.requestedBy ?? 'BERTH_DEPLOYMENT_DB_CONNECTIONS'}): the other deployments hold ${request.othersGranted} of ` +
      `the ${capacity} that deployments may share (max_connections ${server.max}, less ` +
      `${server.reservedByServer} reserved for superusers and ${server.reservedForPlatform} kept ` +
      `for the platform, BERTH_DB_RESERVED_CONNECTIONS), ${left} are left. Delete a deployment, ` +
      `or raise the server's max_connections`,
  };
}

/** The fewest a runtime starts with: two LISTEN connections (the event log's, the run workers') and one per pool. */
export const MIN_RUNTIME_CONNECTIONS = 5;

/**
 * Of a role's limit, what each runtime of the deployment may open: half, since a rollout runs the
 * new revision's runtime beside the serving one until the new one answers.
 */
export const runtimeConnectionsOf = (roleLimit: number): number => Math.floor(roleLimit / 2);

/** Raised when a deployment's role cannot be given its connections: its revision fails with it. */
export class ConnectionBudgetExceededError extends Error {
  override readonly name = 'ConnectionBudgetExceededError';
}
