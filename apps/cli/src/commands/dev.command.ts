import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseCommandArgs } from '../command-args.js';
import { resolveApiKey } from '../api-key.js';
import type { CliEnvironment } from '../cli.config.js';
import { openDatabaseServer } from '../server.js';
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

Data lives in BERTH_DATA_DIR (default ./.berth) on an embedded PostgreSQL, or on DATABASE_URL.
Beside a Berth already running on that directory (npm start), it uses that Berth's PostgreSQL,
with a database of its own. Every request needs the API key in x-api-key: BERTH_API_KEY, or the
one generated and kept in the data directory.`;

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
  const port = await choosePort(host, values.port ?? env.runtimePort);

  const apiKey = await resolveApiKey(env.apiKey, env.dataDir);
  const server = await openDatabaseServer(env.databaseUrl, env.dataDir, { shareRunning: true });
  const databaseUrl = server.configuredUrl ?? (await server.database(databaseNameFor(dir)));
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
