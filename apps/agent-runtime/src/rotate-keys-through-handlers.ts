import { resolve } from 'node:path';
import { loadCustomEncryption } from './encryption/custom-encryption-loader.js';
import { rotateThroughHandlers } from './encryption/rotate-through-handlers.js';

/**
 * `berth keys rotate` under an application's encryption handlers, run as a process of its own:
 * the handlers are the application's code, loaded by the runtime's loader. Arguments: the
 * application's langgraph.json and the batch size; the database from DATABASE_URL.
 */
async function main(): Promise<void> {
  const [graphConfig, batchSizeText] = process.argv.slice(2);
  const databaseUrl = process.env.DATABASE_URL;
  if (!graphConfig || !batchSizeText || !databaseUrl) {
    throw new Error(
      'usage: rotate-keys-through-handlers <langgraph.json> <batch size>, DATABASE_URL set',
    );
  }
  const configPath = resolve(graphConfig);
  const wrapper = await loadCustomEncryption(configPath);
  if (!wrapper) throw new Error(`${configPath} names no encryption handlers`);
  await rotateThroughHandlers(databaseUrl, wrapper, configPath, Number(batchSizeText));
}

main().catch((error: unknown) => {
  console.error(`berth: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
