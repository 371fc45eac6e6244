import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CACHE_DIRECTORY_TAG, CACHE_DIRECTORY_TAG_SIGNATURE } from '#libs/source-archive';

/**
 * Makes the data directory, tagged as a cache directory (the CACHEDIR.TAG convention backup
 * tools and `tar --exclude-caches` honour, and `berth deploy` too): whatever its name and
 * wherever it is, it is never packed or backed up as a project's content.
 */
export async function prepareDataDir(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  await writeFile(
    join(dataDir, CACHE_DIRECTORY_TAG),
    `${CACHE_DIRECTORY_TAG_SIGNATURE}\n# This directory holds Berth's own data (its PostgreSQL cluster and API key).\n`,
    { flag: 'w', mode: 0o644 },
  );
}
