import { rebuildProjections } from '#libs/persistence';
import { loadStorageConfig } from './runtime.config.js';
import { openRuntimePersistence } from './runtime-persistence.js';

/**
 * `npm run projections:rebuild:runtime [-- name ...]`: a runtime's read models (assistants,
 * threads, runs, store_items, crons), on the database at DATABASE_URL (a deployment's own database).
 */
async function main(names: readonly string[]): Promise<void> {
  const persistence = await openRuntimePersistence(loadStorageConfig(), (error) => {
    console.error(error);
  });
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
