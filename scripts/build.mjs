// Builds what changed since the last build: the TypeScript (tsc, incremental) when one of its
// sources is newer than dist/.tsbuildinfo, the console (vite) when one of its files is newer than
// dist/console/index.html. BERTH_BUILD_ALL=true builds both anyway. `npm start` and the test
// scripts build through this, so a start after no change starts at once.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

const SHARED = ['package.json', 'package-lock.json', 'tsconfig.json'];
const TYPESCRIPT = {
  // test/bench imports from test/fixtures.
  sources: [
    'apps',
    'libs',
    'test/bench',
    'test/support',
    'test/fixtures',
    'tsconfig.build.json',
    ...SHARED,
  ],
  skip: new Set(['node_modules', 'apps/console']),
  output: 'dist/.tsbuildinfo',
  command: ['tsc', '-p', 'tsconfig.build.json'],
};
const CONSOLE = {
  sources: ['apps/console', ...SHARED],
  skip: new Set(['node_modules']),
  output: 'dist/console/index.html',
  command: ['vite', 'build', '--config', 'apps/console/vite.config.ts'],
};

/** The newest modification time under `path` (a file or a directory), skipping `skip`. */
function newest(path, skip) {
  if (skip.has(path)) return 0;
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (skip.has(entry)) continue;
    latest = Math.max(latest, newest(join(path, entry), skip));
  }
  return latest;
}

function builtAt(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

function build(part) {
  const changed = Math.max(...part.sources.map((source) => newest(source, part.skip)));
  if (process.env.BERTH_BUILD_ALL !== 'true' && changed < builtAt(part.output)) return;
  const [tool, ...args] = part.command;
  const result = spawnSync(join('node_modules', '.bin', tool), args, { stdio: 'inherit' });
  if (result.status !== 0) {
    // tsc writes its build info even when the types fail: gone, the next build runs again.
    rmSync(part.output, { force: true });
    process.exit(result.status ?? 1);
  }
  // tsc leaves its build info as it was when nothing it emits changed: the build is now.
  const now = new Date();
  utimesSync(part.output, now, now);
}

build(TYPESCRIPT);
build(CONSOLE);
