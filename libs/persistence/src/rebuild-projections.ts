import type { Persistence } from './persistence.js';

/**
 * Empties the named read models (all when none is named) and projects the whole log into them
 * again, reporting each as it finishes. An unknown name fails before anything is emptied.
 */
export async function rebuildProjections(
  persistence: Pick<Persistence, 'runners'>,
  names: readonly string[],
  report: (line: string) => void,
): Promise<void> {
  const known = persistence.runners.map((runner) => runner.projection.name);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Error(`Unknown projection ${unknown.join(', ')}; known: ${known.join(', ')}`);
  }
  for (const runner of persistence.runners) {
    if (names.length > 0 && !names.includes(runner.projection.name)) continue;
    const started = Date.now();
    const events = await runner.rebuild();
    report(`${runner.projection.name}: ${events} events projected in ${Date.now() - started} ms`);
  }
}
