import { loadControlPlaneConfig } from './control-plane.config.js';
import { openPlatformResources } from './platform-resources.js';

/** `npm run projections:rebuild [-- name ...]`: empties read models and projects the whole log again. */
async function main(names: readonly string[]): Promise<void> {
  const resources = await openPlatformResources(loadControlPlaneConfig(), {
    onError: (error) => {
      console.error(error);
    },
  });
  try {
    const known = resources.runners.map((runner) => runner.projection.name);
    const unknown = names.filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      throw new Error(`Unknown projection ${unknown.join(', ')}; known: ${known.join(', ')}`);
    }
    for (const runner of resources.runners) {
      if (names.length > 0 && !names.includes(runner.projection.name)) continue;
      const started = Date.now();
      const events = await runner.rebuild();
      console.log(
        `${runner.projection.name}: ${events} events projected in ${Date.now() - started} ms`,
      );
    }
  } finally {
    await resources.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
