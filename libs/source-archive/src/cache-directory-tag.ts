import { open } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';

/** The Cache Directory Tagging convention: a directory holding this file is a cache. */
export const CACHE_DIRECTORY_TAG = 'CACHEDIR.TAG';
export const CACHE_DIRECTORY_TAG_SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55';
export const CACHE_DIRECTORY_REASON =
  "tagged as a tool's own data (CACHEDIR.TAG), as Berth tags its data directory";

/** Whether `dir` holds a CACHEDIR.TAG file that starts with the convention's signature. */
export async function isTaggedCacheDirectory(dir: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(
      join(dir, CACHE_DIRECTORY_TAG),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch {
    return false;
  }
  try {
    if (!(await handle.stat()).isFile()) return false;
    const buffer = Buffer.alloc(CACHE_DIRECTORY_TAG_SIGNATURE.length);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('latin1') === CACHE_DIRECTORY_TAG_SIGNATURE;
  } finally {
    await handle.close();
  }
}
