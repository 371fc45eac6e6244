import { BERTH_VERSION } from '#libs/config';
import type { Application } from '../application/application.js';

/** What `GET /info` shows a caller without credentials: versions and flags, as the JS server. */
export interface PublicRuntimeInfo {
  readonly version: string;
  readonly langgraph_js_version: string;
  readonly flags: {
    readonly assistants: boolean;
    readonly crons: boolean;
    readonly langsmith: boolean;
  };
}

/** `GET /info` with credentials: also what this runtime serves, and what failed to load. */
export interface RuntimeInfo extends PublicRuntimeInfo {
  readonly graphs: readonly string[];
  /** Graphs that failed to load, with why. */
  readonly failed_graphs: Record<string, string>;
  /** Why the last reload (`berth dev`) is not served, while the code before it still is. */
  readonly reload_error?: string;
}

export function publicRuntimeInfo(application: Application): PublicRuntimeInfo {
  return {
    version: BERTH_VERSION,
    langgraph_js_version: application.langgraphVersion,
    flags: { assistants: true, crons: true, langsmith: false },
  };
}

export function runtimeInfo(application: Application): RuntimeInfo {
  return {
    ...publicRuntimeInfo(application),
    graphs: application.graphIds(),
    failed_graphs: Object.fromEntries(application.failedGraphs()),
    ...(application.reloadError ? { reload_error: application.reloadError } : {}),
  };
}
