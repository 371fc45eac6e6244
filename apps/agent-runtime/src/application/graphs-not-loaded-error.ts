/**
 * Graphs of the configuration that failed to load where every graph must load (a deployment's
 * runtime: a revision that serves only some of its graphs is not deployed).
 */
export class GraphsNotLoadedError extends Error {
  override readonly name = 'GraphsNotLoadedError';

  constructor(
    readonly configFile: string,
    /** Why each graph failed, by graph id. */
    readonly failures: ReadonlyMap<string, string>,
  ) {
    super(describeFailedGraphs(failures));
  }
}

/** One line: each graph that failed to load, and the first line of why. */
export function describeFailedGraphs(failures: ReadonlyMap<string, string>): string {
  const each = [...failures].map(([graphId, reason]) => {
    const firstLine = reason.split('\n', 1)[0]?.trim() ?? '';
    const named = `graph "${graphId}": `;
    return firstLine.startsWith(named) ? firstLine : `${named}${firstLine}`;
  });
  const noun = failures.size === 1 ? 'A graph' : `${failures.size} graphs`;
  return `${noun} failed to load: ${each.join('; ')}`;
}
