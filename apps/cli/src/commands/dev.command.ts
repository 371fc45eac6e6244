import { existsSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseCommandArgs } from '#libs/config';
import { resolveApiKey, type ApiKeySource } from '../api-key.js';
import type { CliEnvironment } from '../cli.config.js';
import { prepareDataDir } from '../platform/data-dir-tag.js';
import { chooseDevFooting, type DevFooting } from '../platform/dev-footing.js';
import { openDatabaseServer, type DatabaseServer } from '../server.js';
import { firstFreePort, requireFreePort } from '../ports.js';
import { Supervisor } from '../supervisor.js';
import { RUNTIME_SCRIPT, UsageError } from './scripts.js';

export const DEV_HELP = `Usage: berth dev [dir] [--port P] [--config FILE] [--host H] [--watch | --no-reload]

Serves one application's agent runtime, as the local servers agent developers know do:
assistants, threads, runs and resumable streams for the graphs in its langgraph.json.

  dir             the application's directory (default: the current one)
  --config FILE   its graph configuration file (default: <dir>/langgraph.json)
  --port P        the port to serve on (default: BERTH_RUNTIME_PORT, or the first free one
                  from 8123)
  --host H        the address to bind (default: BERTH_HOST or 127.0.0.1)
  --watch         load the graphs again when the application's files change (the default)
  --no-reload     do not: serve the code as it was at start

A change to the application's files (not node_modules or dot-directories) reloads its graphs and
its http.app: threads stay, runs in progress finish on the code they started with, and code
that fails to load is reported while the code before it keeps serving. auth, store and env
changes need a restart.

Nothing is written in the application's directory. The data (a database of the application's
own) and the API key come from, in this order: DATABASE_URL or BERTH_DATA_DIR when set; the
Berth platform running on this machine (npm start), found from any directory; else Berth's own
data directory (.berth in the Berth installation) on an embedded PostgreSQL. The first line says
which. Every request needs the API key in x-api-key: BERTH_API_KEY, or the one it prints.`;

const DEFAULT_PORT = 8123;

/** The port to serve on: the one asked for (it must be free), or the first free one from 8123. */
async function choosePort(host: string, asked: string | undefined): Promise<string> {
  if (asked !== undefined) {
    const port = Number(asked);
    if (!Number.isInteger(port) || port < 1 || port > 65_535)
      throw new UsageError(`--port must be a port number, got ${asked}`);
    await requireFreePort(host, port, 'choose another (--port P, or BERTH_RUNTIME_PORT)');
    return asked;
  }
  const free = await firstFreePort(host, DEFAULT_PORT);
  if (free === undefined)
    throw new Error(
      `Ports ${DEFAULT_PORT} to ${DEFAULT_PORT + 19} are in use: choose one with --port P.`,
    );
  if (free !== DEFAULT_PORT) console.log(`  Port ${DEFAULT_PORT} is in use: serving on ${free}.`);
  return String(free);
}

/** A database name from the application directory's name. */
function databaseNameFor(dir: string): string {
  const slug = basename(dir)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return `berth_app_${slug || 'default'}`.slice(0, 60);
}

/**
 * The API key, PostgreSQL server and data directory of the footing chosen: the runtime keeps
 * what it must (its master key) there, never in the application's directory.
 */
async function openFooting(
  footing: DevFooting,
  env: CliEnvironment,
): Promise<{ apiKey: ApiKeySource; server: DatabaseServer; dataDir: string }> {
  if (footing.kind === 'platform') {
    const { platform } = footing;
    return {
      dataDir: platform.dataDir,
      apiKey: env.apiKey
        ? { key: env.apiKey, origin: 'environment' }
        : { key: platform.apiKey, origin: 'the running platform' },
      server: await openDatabaseServer(platform.databaseUrl, platform.dataDir, {
        shareRunning: true,
      }),
    };
  }
  if (!env.databaseUrl) await prepareDataDir(env.dataDir);
  return {
    dataDir: env.dataDir,
    apiKey: await resolveApiKey(env.apiKey, env.dataDir),
    server: await openDatabaseServer(env.databaseUrl, env.dataDir, { shareRunning: true }),
  };
}

/** An earlier `berth dev` kept its data in the application's directory: say it is not used. */
async function warnOfLeftoverDataDir(appDir: string, dataDir: string): Promise<void> {
  const leftover = join(appDir, '.berth');
  if (leftover === dataDir || !(await isDirectory(leftover))) return;
  console.log(
    `  ${leftover} was left by an earlier berth dev: it is no longer used, and berth deploy ` +
      'leaves it out. Delete it once you no longer need what it holds.',
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return lstat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}

/** Whether `berth dev` reloads on change: it does unless told `--no-reload`. */
export function reloadsOnChange(flags: {
  readonly watch?: boolean;
  readonly 'no-reload'?: boolean;
}): boolean {
  if (flags.watch && flags['no-reload'])
    throw new UsageError('--watch and --no-reload contradict each other: give one');
  return !flags['no-reload'];
}

export async function dev(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values, positionals } = parseCommandArgs(DEV_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      config: { type: 'string' },
      host: { type: 'string' },
      watch: { type: 'boolean' },
      'no-reload': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(DEV_HELP);
    return;
  }
  if (positionals.length > 1)
    throw new UsageError(`berth dev takes one directory, got ${positionals.join(' ')}`);
  const dir = resolve(positionals[0] ?? '.');
  const configFile = resolve(values.config ?? resolve(dir, 'langgraph.json'));
  if (!existsSync(configFile))
    throw new UsageError(`No graph configuration at ${configFile} (use --config)`);
  const reload = reloadsOnChange(values);
  const host = values.host ?? env.host ?? '127.0.0.1';
  const footing = await chooseDevFooting(env);
  console.log(`  ${footing.said}`);
  await warnOfLeftoverDataDir(dir, env.dataDir);
  const port = await choosePort(host, values.port ?? env.runtimePort);

  const { apiKey, server, dataDir } = await openFooting(footing, env);
  const databaseUrl = env.databaseUrl ?? (await server.database(databaseNameFor(dir)));
  const supervisor = new Supervisor(() => server.stop());
  process.once('SIGINT', () => void supervisor.stop());
  process.once('SIGTERM', () => void supervisor.stop());
  supervisor.start({
    name: 'runtime',
    script: RUNTIME_SCRIPT,
    essential: false,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BERTH_DATA_DIR: dataDir,
      BERTH_API_KEY: apiKey.key,
      BERTH_GRAPH_CONFIG: configFile,
      BERTH_RUNTIME_PORT: port,
      BERTH_HOST: host,
      EVENTSTORE_URL: env.eventStoreUrl,
      BERTH_RELOAD: String(reload),
    },
  });
  const url = `http://${host}:${port}`;
  await supervisor.untilServing(url, 120_000);
  console.log(`\n  Berth agent runtime: ${url}`);
  console.log(`  Application:         ${configFile}`);
  console.log(`  Database:            ${server.description}`);
  console.log(`  API key (${apiKey.origin}): ${apiKey.key}\n`);
}
