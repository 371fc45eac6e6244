import { bundleGlobalOf } from './ui-entry.js';
import { bundleUi, type UiBundleRequest, type UiFile } from './ui-bundler.js';
import type { UiSection } from './ui-section.js';

/** An agent's bundle as served: its files, or why there are none. */
export type UiBundle =
  { readonly files: readonly UiFile[] } | { readonly problem: string; readonly files?: undefined };

/**
 * The agents whose bundle would define the same global as an earlier agent's (`a-b` and `a_b`),
 * each with that agent: the page could not tell their scripts apart.
 */
export function clashingAgents(agents: readonly string[]): ReadonlyMap<string, string> {
  const owners = new Map<string, string>();
  const clashes = new Map<string, string>();
  for (const agent of agents) {
    const global = bundleGlobalOf(agent);
    const owner = owners.get(global);
    if (owner === undefined) owners.set(global, agent);
    else clashes.set(agent, owner);
  }
  return clashes;
}

/**
 * The generative UI bundles of the application (`ui` of `langgraph.json`), made when it is
 * loaded and again after each reload, never on a request: a request for a bundle still being
 * made waits for it. An agent whose bundle fails answers why, the others are served; after a
 * reload, a failing agent keeps its last good bundle.
 */
export class UiBundles {
  private bundles = new Map<string, Promise<UiBundle>>();

  constructor(
    private readonly bundle: (request: UiBundleRequest) => Promise<UiFile[]> = bundleUi,
  ) {}

  /** The agent's bundle, once made; undefined for an agent the application has no UI for. */
  find(agent: string): Promise<UiBundle> | undefined {
    return this.bundles.get(agent);
  }

  /** Bundles every agent of `section`; resolves, once all are done, with what failed, for the log. */
  async load(section: UiSection | undefined, appDir: string): Promise<string[]> {
    const previous = this.bundles;
    const clashes = clashingAgents([...(section?.components.keys() ?? [])]);
    const next = new Map<string, Promise<UiBundle>>();
    const outcomes: Promise<{ bundle: UiBundle; problem?: string }>[] = [];
    for (const [agent, componentFile] of section?.components ?? []) {
      const owner = clashes.get(agent);
      const made: Promise<UiBundle> =
        owner === undefined
          ? this.make({ agent, componentFile, appDir, shared: section?.shared ?? [] })
          : Promise.resolve({
              problem: `agent "${agent}" and agent "${owner}" would both define ${bundleGlobalOf(agent)}: rename one`,
            });
      const outcome = made.then(async (bundle) => {
        if (bundle.files) return { bundle };
        const before = await previous.get(agent);
        return before?.files
          ? {
              bundle: before,
              problem: `the UI of agent "${agent}" is not served anew (its bundle before is): ${bundle.problem}`,
            }
          : { bundle, problem: `the UI of agent "${agent}" is not served: ${bundle.problem}` };
      });
      next.set(
        agent,
        outcome.then(({ bundle }) => bundle),
      );
      outcomes.push(outcome);
    }
    this.bundles = next;
    return (await Promise.all(outcomes)).flatMap(({ problem }) => (problem ? [problem] : []));
  }

  private make(request: UiBundleRequest): Promise<UiBundle> {
    return this.bundle(request).then(
      (files) => ({ files }),
      (error: unknown) => ({ problem: error instanceof Error ? error.message : String(error) }),
    );
  }
}
