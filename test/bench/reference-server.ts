import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cp, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { freePort } from '../support/free-port.js';
import { installOfficialCli } from '../support/official-cli.js';
import { waitForOk } from '../support/wait-for-ok.js';

/**
 * The reference in-memory server: `langgraphjs dev` of `@langchain/langgraph-cli`, installed on
 * first use into a cache (`installOfficialCli`), never a dependency of Berth.
 */
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 5_000;
/** What the copy of the application leaves out: dependencies and the dev server's own files. */
const NOT_COPIED = new Set(['node_modules', '.langgraph_api', '.gitignore']);
/** Keys that would make the reference server talk to LangSmith. */
const REMOTE_ENV = /^(LANGSMITH_|LANGCHAIN_|LANGGRAPH_API_KEY$|LANGGRAPH_CLOUD_)/;

export interface ReferenceServer {
  readonly url: string;
  readonly port: number;
  readonly version: string;
  /** The CLI's process: the server runs as its descendant. */
  readonly pid: number;
  /** What the server printed, for an error message. */
  output(): string;
  /** SIGTERM to its whole process group, then SIGKILL; removes its copy of the application. */
  stop(): Promise<void>;
}

export interface ReferenceServerOptions {
  /** The application's directory (holding langgraph.json). */
  readonly appDir: string;
  readonly port?: number;
}

async function cliBin(): Promise<{ path: string; version: string }> {
  // <package>/dist/cli/cli.mjs
  const cliPackage = dirname(dirname(dirname(await installOfficialCli())));
  const manifest = JSON.parse(readFileSync(join(cliPackage, 'package.json'), 'utf8')) as {
    version: string;
    bin: Record<string, string>;
  };
  const bin = manifest.bin.langgraphjs;
  if (bin === undefined) throw new Error(`${cliPackage} has no langgraphjs bin`);
  return { path: join(cliPackage, bin), version: manifest.version };
}

/**
 * The dev server writes `.gitignore` and `.langgraph_api/` into the application's directory, so
 * it serves an identical copy of the application in a temporary directory whose `node_modules`
 * is a link to the repository's (the same @langchain/langgraph and @langchain/core as Berth's).
 */
async function copyApplication(appDir: string): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), 'berth-bench-reference-'));
  await cp(appDir, copy, {
    recursive: true,
    filter: (source) => !NOT_COPIED.has(basename(source)),
  });
  await symlink(resolve('node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

function referenceEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!REMOTE_ENV.test(key)) env[key] = value;
  }
  return {
    ...env,
    LANGGRAPH_CLI_NO_ANALYTICS: '1',
    LANGSMITH_TRACING: 'false',
    LANGCHAIN_TRACING_V2: 'false',
    BROWSER: 'none',
    FORCE_COLOR: '0',
    NO_COLOR: '1',
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

function exited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      done(false);
    }, timeoutMs);
    const onExit = (): void => {
      clearTimeout(timer);
      done(true);
    };
    child.once('exit', onExit);
  });
}

/**
 * `langgraphjs dev` on a free port (never its default 2024), without browser, reload, analytics
 * or LangSmith, in a process group of its own (the CLI starts the server as a grandchild through
 * tsx), ready when GET /ok answers.
 */
export async function startReferenceServer(
  options: ReferenceServerOptions,
): Promise<ReferenceServer> {
  const port = options.port ?? (await freePort());
  if (port === 2024) throw new Error('port 2024 is not ours to bind');
  const { path: bin, version } = await cliBin();
  const appDir = await copyApplication(options.appDir);
  const args = [
    bin,
    'dev',
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--no-browser',
    '--no-reload',
    '--config',
    join(appDir, 'langgraph.json'),
  ];
  const child = spawn(process.execPath, args, {
    cwd: appDir,
    env: referenceEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Should this process exit without stopping the server, its group goes with it.
  const onExit = (): void => {
    killGroup(child, 'SIGKILL');
    rmSync(appDir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    killGroup(child, 'SIGTERM');
    await exited(child, STOP_TIMEOUT_MS);
    // The server itself is a grandchild: make sure nothing of the group survives.
    killGroup(child, 'SIGKILL');
    await exited(child, STOP_TIMEOUT_MS);
    process.off('exit', onExit);
    await rm(appDir, { recursive: true, force: true });
  };
  try {
    await waitForOk('The reference server', child, url, () => output, START_TIMEOUT_MS);
  } catch (error) {
    await stop();
    throw error;
  }
  if (child.pid === undefined) throw new Error('The reference server has no process id');
  return { url, port, version, pid: child.pid, output: () => output, stop };
}
