import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readGraphConfigJson } from '#libs/graph-config';

/** The runtime's entry that rotates through an application's handlers (their code is its to load). */
const ROTATE_SCRIPT = fileURLToPath(
  new URL('../../../agent-runtime/src/rotate-keys-through-handlers.js', import.meta.url),
);

/** Whether the application's langgraph.json names encryption handlers (`encryption.path`). */
export async function namesEncryptionHandlers(graphConfigPath: string): Promise<boolean> {
  const json = await readGraphConfigJson(graphConfigPath);
  if (typeof json !== 'object' || json === null) return false;
  const encryption = (json as { encryption?: unknown }).encryption;
  return typeof encryption === 'object' && encryption !== null && 'path' in encryption;
}

/**
 * Every data key the handlers wrapped is wrapped again through them, by the runtime's entry in a
 * process of its own, which prints its counts; fails with its exit status.
 */
export async function rotateThroughHandlers(
  databaseUrl: string,
  graphConfigPath: string,
  batchSize: number,
): Promise<void> {
  const child = spawn(process.execPath, [ROTATE_SCRIPT, graphConfigPath, String(batchSize)], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: 'inherit',
  });
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('exit', (exitCode) => {
      done(exitCode);
    });
  });
  if (code !== 0) process.exitCode = code ?? 1;
}
