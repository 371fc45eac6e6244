/** The application's graphs, by id. Provided from the graph registry at start-up. */
export abstract class GraphCatalog {
  abstract graphIds(): readonly string[];
}
