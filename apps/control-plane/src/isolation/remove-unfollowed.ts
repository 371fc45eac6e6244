import { constants, existsSync } from 'node:fs';
import { open, readdir, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { errorCode } from './error-code.js';

const DIRECTORY_FLAGS =
  constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Whether a directory can be worked in through its descriptor (Linux, with /proc). */
export const CAN_WORK_BY_DESCRIPTOR = process.platform === 'linux' && existsSync('/proc/self/fd');

/**
 * Empties a directory as the platform (root, whose rights no mode limits): each directory held
 * open and everything in it named through its descriptor (/proc/self/fd/N/name), so that nothing
 * a tenant swaps in meanwhile is ever followed; top-down, whatever the modes its owner set.
 */
export async function emptyWithoutFollowing(path: string): Promise<void> {
  const dir = await open(path, DIRECTORY_FLAGS);
  try {
    await emptyHeld(dir);
  } finally {
    await dir.close();
  }
}

async function emptyHeld(dir: FileHandle): Promise<void> {
  const here = `/proc/self/fd/${dir.fd}`;
  for (const name of await readdir(here)) {
    const entry = `${here}/${name}`;
    const child = await open(entry, DIRECTORY_FLAGS).catch((error: unknown) => {
      // ENOTDIR: a file, a link (never followed) or a FIFO; ENOENT: gone meanwhile.
      if (errorCode(error) === 'ENOTDIR' || errorCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (!child) {
      await unlink(entry).catch(ignoreGone);
      continue;
    }
    try {
      await emptyHeld(child);
    } finally {
      await child.close();
    }
    await rmdir(entry).catch(ignoreGone);
  }
}

function ignoreGone(error: unknown): void {
  if (errorCode(error) !== 'ENOENT') throw error;
}
