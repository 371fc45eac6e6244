import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const LOCKFILES: readonly (readonly [string, string])[] = [
  ['package-lock.json', 'npm ci --no-audit --no-fund --prefer-offline'],
  ['npm-shrinkwrap.json', 'npm ci --no-audit --no-fund --prefer-offline'],
  ['yarn.lock', 'yarn install --frozen-lockfile'],
  ['pnpm-lock.yaml', 'pnpm install --frozen-lockfile'],
  ['bun.lock', 'bun install --frozen-lockfile'],
  ['bun.lockb', 'bun install --frozen-lockfile'],
];
const WITHOUT_LOCKFILE = 'npm install --no-audit --no-fund --prefer-offline';

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
  let command = configured ?? undefined;
  let reason = configured ? 'install_command' : 'no package.json: nothing to install';
  for (const [file, detected] of LOCKFILES) {
    const content = await read(join(root, file));
    if (content === undefined) continue;
    hash.update('\0').update(file).update('\0').update(content);
    if (!command) {
      command = detected;
      reason = `detected from ${file}`;
    }
  }
  if (!command && manifest !== undefined) {
    command = WITHOUT_LOCKFILE;
    reason = 'package.json without a lockfile';
  }
  hash.update('\0').update(command ?? '');
  return { command, reason, cacheKey: hash.digest('hex').slice(0, 32) };
}
