import { BERTH_VERSION } from '#libs/config';
import type { Application } from '../application/application.js';

/** `GET /info`: what this runtime serves, in the reference server's shape. */
export interface RuntimeInfo {
  readonly version: string;
  readonly langgraph_js_version: string;
  readonly graphs: readonly string[];
  /** Graphs that failed to load, with why. */
  readonly failed_graphs: Record<string, string>;
  /** Why the last reload (`berth dev`) is not served, while the code before it still is. */
  readonly reload_error?: string;
  readonly flags: {
    readonly assistants: boolean;
    readonly crons: boolean;
    readonly langsmith: boolean;
  };
}

export function runtimeInfo(application: Application): RuntimeInfo {
  return {
    version: BERTH_VERSION,
    langgraph_js_version: application.langgraphVersion,
    graphs: application.graphIds(),
    failed_graphs: Object.fromEntries(application.failedGraphs()),
    ...(application.reloadError ? { reload_error: application.reloadError } : {}),
    flags: { assistants: true, crons: true, langsmith: false },
  };
}
