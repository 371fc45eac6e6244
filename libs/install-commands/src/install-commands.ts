/** The lockfiles an application may have, and how its dependencies are installed from each. */
export const LOCKFILE_INSTALLS: readonly (readonly [lockfile: string, command: string])[] = [
  ['package-lock.json', 'npm ci --no-audit --no-fund --prefer-offline'],
  ['npm-shrinkwrap.json', 'npm ci --no-audit --no-fund --prefer-offline'],
  ['yarn.lock', 'yarn install --frozen-lockfile'],
  ['pnpm-lock.yaml', 'pnpm install --frozen-lockfile'],
  ['bun.lock', 'bun install --frozen-lockfile'],
  ['bun.lockb', 'bun install --frozen-lockfile'],
];

/** How a package.json without a lockfile is installed. */
export const INSTALL_WITHOUT_LOCKFILE = 'npm install --no-audit --no-fund --prefer-offline';

/**
 * How an application's dependencies are installed, from the files it has: the command of its
 * first lockfile, `npm install` for a package.json alone, nothing without one.
 */
export function detectInstall(
  has: (file: string) => boolean,
): { readonly command: string; readonly reason: string } | undefined {
  for (const [lockfile, command] of LOCKFILE_INSTALLS) {
    if (has(lockfile)) return { command, reason: `detected from ${lockfile}` };
  }
  return has('package.json')
    ? { command: INSTALL_WITHOUT_LOCKFILE, reason: 'package.json without a lockfile' }
    : undefined;
}
