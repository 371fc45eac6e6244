/** How many connections each of an app's pools may open to its database. */
export interface PoolSizes {
  /** The event store's pool: appends, stream and log reads. */
  readonly eventStore: number;
  /** The plain pool: the run queue and the queries beyond TypeORM. */
  readonly queries: number;
  /** TypeORM's pool: the read models and their projections. */
  readonly readModels: number;
}

/** The pools' sizes when no budget is given. */
export const DEFAULT_POOL_SIZES: PoolSizes = { eventStore: 10, queries: 10, readModels: 10 };

/** One connection per pool: the least a process can work with. */
export const MIN_POOLED_CONNECTIONS = 3;

/**
 * Splits a process's connection budget among its pools, once the connections it keeps outside
 * them (`dedicated`: each LISTEN connection) are taken off: three eighths to the event store, as
 * much to the plain pool, the rest to the read models, and at least one each. The pools' maxima
 * and the dedicated connections add up to the budget, never more.
 */
export function splitConnectionBudget(budget: number, dedicated: number): PoolSizes {
  const pooled = budget - dedicated;
  if (!Number.isInteger(budget) || pooled < MIN_POOLED_CONNECTIONS) {
    throw new RangeError(
      `A budget of ${budget} database connections leaves ${pooled} for the pools once ` +
        `${dedicated} listening connection(s) are kept: at least ${MIN_POOLED_CONNECTIONS} are needed`,
    );
  }
  const eventStore = Math.max(1, Math.floor((pooled * 3) / 8));
  const queries = Math.max(1, Math.floor((pooled * 3) / 8));
  return { eventStore, queries, readModels: pooled - eventStore - queries };
}
