import { spawn } from 'node:child_process';
import { readFile, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The version of `@langchain/langgraph-cli` Berth is checked against. */
export const OFFICIAL_CLI_VERSION = '1.5.1';
/**
 * Reused across runs: installed once from the npm registry, never a dependency of the project.
 * `BERTH_OFFICIAL_CLI_CACHE` moves it (say, out of a `node_modules` shared between worktrees).
 */
const CACHE_DIR = resolve(
  process.env.BERTH_OFFICIAL_CLI_CACHE ?? 'node_modules/.cache/berth',
  `langgraph-cli-${OFFICIAL_CLI_VERSION}`,
);
const PACKAGE_DIR = join(CACHE_DIR, 'node_modules', '@langchain', 'langgraph-cli');
export const INSTALL_TIMEOUT_MS = 300_000;

export interface OfficialCliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<OfficialCliResult> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      done({ code, stdout, stderr });
    });
  });
}

async function installedVersion(): Promise<string | null> {
  try {
    const manifest = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
      version?: string;
    };
    return manifest.version ?? null;
  } catch {
    return null;
  }
}

/**
 * The official CLI's entry point, installed into the cache unless it already is. Test files
 * running side by side may both install: each installs into a directory of its own and renames
 * it into place, and the one that finds the place taken uses the other's.
 */
export async function installOfficialCli(): Promise<string> {
  if ((await installedVersion()) !== OFFICIAL_CLI_VERSION) {
    const staging = `${CACHE_DIR}.${process.pid}.${Date.now()}`;
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const result = await run(
      npm,
      [
        'install',
        '--prefix',
        staging,
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `@langchain/langgraph-cli@${OFFICIAL_CLI_VERSION}`,
      ],
      { cwd: process.cwd(), env: process.env },
    );
    if (result.code !== 0) {
      await rm(staging, { recursive: true, force: true });
      throw new Error(`npm install of the official CLI failed: ${result.stderr}`);
    }
    if ((await installedVersion()) === OFFICIAL_CLI_VERSION) {
      await rm(staging, { recursive: true, force: true });
    } else {
      // Another version, or a broken install: replaced.
      await rm(CACHE_DIR, { recursive: true, force: true });
      await rename(staging, CACHE_DIR).catch(async (error: unknown) => {
        await rm(staging, { recursive: true, force: true });
        if ((await installedVersion()) !== OFFICIAL_CLI_VERSION) throw error;
      });
    }
  }
  return join(PACKAGE_DIR, 'dist', 'cli', 'cli.mjs');
}

/** The environment of the test process without the platform's own keys and URLs. */
function officialCliEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(BERTH_|LANGSMITH_|LANGCHAIN_|LANGGRAPH_)/.test(name)) continue;
    if (name === 'DATABASE_URL') continue;
    env[name] = value;
  }
  return { ...env, LANGGRAPH_CLI_NO_ANALYTICS: '1', NO_COLOR: '1' };
}

/** `langgraphjs <args>` from the official CLI, run as a real process in `cwd`. */
export function officialCli(
  entry: string,
  args: readonly string[],
  cwd: string,
): Promise<OfficialCliResult> {
  return run(process.execPath, [entry, ...args], { cwd, env: officialCliEnvironment() });
}
