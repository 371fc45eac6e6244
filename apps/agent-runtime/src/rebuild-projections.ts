import { resolve } from 'node:path';
import { rebuildProjections } from '#libs/persistence';
import { loadCustomEncryption } from './encryption/custom-encryption-loader.js';
import { loadStorageConfig } from './runtime.config.js';
import { openRuntimePersistence } from './runtime-persistence.js';

/**
 * `npm run projections:rebuild:runtime [-- name ...]`: a runtime's read models (assistants,
 * threads, runs, store_items, crons), on the database at DATABASE_URL (a deployment's own database).
 */
async function main(names: readonly string[]): Promise<void> {
  // An application's own encryption (`encryption.path`) opens its data keys.
  const graphConfig = process.env.BERTH_GRAPH_CONFIG;
  const customKeys = graphConfig ? await loadCustomEncryption(resolve(graphConfig)) : undefined;
  const persistence = await openRuntimePersistence(
    loadStorageConfig(),
    (error) => {
      console.error(error);
    },
    undefined,
    customKeys,
  );
  try {
    await rebuildProjections(persistence, names, (line) => {
      console.log(line);
    });
  } finally {
    await persistence.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
