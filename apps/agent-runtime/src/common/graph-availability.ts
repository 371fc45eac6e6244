import { notFound, unavailable } from '#libs/domain';
import type { GraphCatalog } from './runtime-tokens.js';

/** A graph that failed to load answers 503 with the reason it failed. */
export function refuseFailedGraph(catalog: GraphCatalog, graphId: string): void {
  const reason = catalog.failedGraphs().get(graphId);
  if (reason !== undefined) {
    throw unavailable(`Graph "${graphId}" failed to load: ${reason}`);
  }
}

/** The graph must be one the application serves: 503 when it failed to load, 404 when unknown. */
export function requireServedGraph(catalog: GraphCatalog, graphId: string): void {
  refuseFailedGraph(catalog, graphId);
  if (!catalog.graphIds().includes(graphId)) {
    throw notFound(
      `Graph "${graphId}" not found; this application serves: ${catalog.graphIds().join(', ')}`,
    );
  }
}
