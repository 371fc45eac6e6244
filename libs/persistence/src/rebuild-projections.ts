import { rebuildTogether } from '#libs/event-store';
import type { Persistence } from './persistence.js';

/**
 * Empties the named read models (all when none is named) and projects the whole log into them
 * again, from one read of the log, reporting each once done. An unknown name fails before
 * anything is emptied.
 */
export async function rebuildProjections(
  persistence: Pick<Persistence, 'runners' | 'eventStore'>,
  names: readonly string[],
  report: (line: string) => void,
): Promise<void> {
  const known = persistence.runners.map((runner) => runner.projection.name);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new Error(`Unknown projection ${unknown.join(', ')}; known: ${known.join(', ')}`);
  }
  const chosen = persistence.runners.filter(
    (runner) => names.length === 0 || names.includes(runner.projection.name),
  );
  const started = Date.now();
  const events = await rebuildTogether(persistence.eventStore, chosen);
  for (const runner of chosen) {
    report(`${runner.projection.name}: ${events} events projected in ${Date.now() - started} ms`);
  }
}
