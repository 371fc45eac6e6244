/** The application's graphs, by id. Provided from the graph registry at start-up. */
export abstract class GraphCatalog {
  /** The graphs served: those that loaded. */
  abstract graphIds(): readonly string[];
  /** The graphs that failed to load, each with the reason. */
  abstract failedGraphs(): ReadonlyMap<string, string>;
}
