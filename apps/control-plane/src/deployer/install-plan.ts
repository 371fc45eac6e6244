import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { detectInstall, LOCKFILE_INSTALLS } from '#libs/install-commands';

export type InstallPlan = {
  /** Undefined when there is nothing to install (no package.json and no install command). */
  command: string | undefined;
  /** Why this command, for the build log. */
  reason: string;
  /** Same key, same dependencies: the installed node_modules can be reused. */
  cacheKey: string;
};

const read = (file: string): Promise<string | undefined> =>
  readFile(file, 'utf8').catch(() => undefined);

/** The install command (given, or detected from the lockfile) and the key of its result. */
export async function planInstall(root: string, configured: string | null): Promise<InstallPlan> {
  const manifest = await read(join(root, 'package.json'));
  const hash = createHash('sha256')
    .update(process.version)
    .update('\0')
    .update(manifest ?? '');
  const present = new Set(manifest === undefined ? [] : ['package.json']);
  for (const [file] of LOCKFILE_INSTALLS) {
    const content = await read(join(root, file));
    if (content === undefined) continue;
    present.add(file);
    hash.update('\0').update(file).update('\0').update(content);
  }
  const detected = detectInstall((file) => present.has(file));
  const command = configured ?? detected?.command;
  const reason = configured
    ? 'install_command'
    : (detected?.reason ?? 'no package.json: nothing to install');
  hash.update('\0').update(command ?? '');
  return { command, reason, cacheKey: hash.digest('hex').slice(0, 32) };
}
