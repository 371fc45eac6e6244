import { rebuildProjections } from '#libs/persistence';
import { loadControlPlaneConfig } from './control-plane.config.js';
import { openPlatformResources } from './platform-resources.js';

/** `npm run projections:rebuild [-- name ...]`: the control plane's read models. */
async function main(names: readonly string[]): Promise<void> {
  const resources = await openPlatformResources(loadControlPlaneConfig(), {
    onError: (error) => {
      console.error(error);
    },
  });
  try {
    await rebuildProjections(resources, names, (line) => {
      console.log(line);
    });
  } finally {
    await resources.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
