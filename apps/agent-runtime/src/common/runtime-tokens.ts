import type { JsonObject } from '#libs/domain';

/** What a graph's default assistant is created with. */
export interface DefaultAssistantSettings {
  readonly config: JsonObject;
  readonly context: JsonObject;
}

/** The application's graphs, by id. Provided from the graph registry at start-up. */
export abstract class GraphCatalog {
  /** The graphs served: those that loaded. */
  abstract graphIds(): readonly string[];
  /** The graphs that failed to load, each with the reason. */
  abstract failedGraphs(): ReadonlyMap<string, string>;
  /** The config and context of the graph's default assistant (from `LANGGRAPH_CONFIG`). */
  abstract defaultAssistant(graphId: string): DefaultAssistantSettings;
}
