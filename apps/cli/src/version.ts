import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version in Berth's package.json: the nearest one above this file, which is the checkout's
 * both for the sources and for the build in dist/.
 */
export function cliVersion(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
      if (typeof version !== 'string') throw new Error(`${file} has no version`);
      return version;
    }
    if (dirname(dir) === dir) throw new Error('no package.json above the berth command');
  }
}
