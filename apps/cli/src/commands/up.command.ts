import { parseCommandArgs } from '#libs/config';
import { resolveApiKey } from '../api-key.js';
import type { CliEnvironment } from '../cli.config.js';
import { prepareDataDir } from '../platform/data-dir-tag.js';
import { recordPlatform } from '../platform/platform-record.js';
import { openDatabaseServer } from '../server.js';
import { requireFreePort } from '../ports.js';
import { Supervisor } from '../supervisor.js';
import { CONTROL_PLANE_SCRIPT, EXAMPLE_GRAPH_CONFIG, RUNTIME_SCRIPT } from './scripts.js';

export const UP_HELP = `Usage: berth up

Starts the platform on this machine: the control plane (BERTH_CONTROL_PLANE_PORT, default 8080)
and the bundled example application's agent runtime (BERTH_RUNTIME_PORT, default 8123), on an
embedded PostgreSQL in BERTH_DATA_DIR (default: .berth in the Berth installation) or on
DATABASE_URL. Prints the URLs and the API key (BERTH_API_KEY, or one generated and kept in the
data directory). While it runs, it is recorded in $XDG_STATE_HOME/berth (~/.local/state/berth):
berth dev and berth deploy find it there from any directory, with its key and PostgreSQL.`;

export async function up(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values } = parseCommandArgs(UP_HELP, {
    args: [...args],
    options: { help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(UP_HELP);
    return;
  }
  const host = env.host ?? '127.0.0.1';
  const controlPlanePort = env.controlPlanePort ?? '8080';
  const runtimePort = env.runtimePort ?? '8123';
  await requireFreePort(
    host,
    Number(controlPlanePort),
    'choose another with BERTH_CONTROL_PLANE_PORT',
  );
  await requireFreePort(host, Number(runtimePort), 'choose another with BERTH_RUNTIME_PORT');
  await prepareDataDir(env.dataDir);
  const apiKey = await resolveApiKey(env.apiKey, env.dataDir);
  const server = await openDatabaseServer(env.databaseUrl, env.dataDir);
  let forgetRecord = (): Promise<void> => Promise.resolve();
  const supervisor = new Supervisor(async () => {
    await forgetRecord();
    await server.stop();
  });
  const stop = (): void => void supervisor.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const shared = {
    ...process.env,
    BERTH_API_KEY: apiKey.key,
    BERTH_HOST: host,
    EVENTSTORE_URL: env.eventStoreUrl,
  };
  supervisor.start({
    name: 'control-plane',
    script: CONTROL_PLANE_SCRIPT,
    essential: true,
    env: {
      ...shared,
      DATABASE_URL: server.configuredUrl ?? (await server.database('berth')),
      BERTH_CONTROL_PLANE_PORT: controlPlanePort,
    },
  });
  supervisor.start({
    name: 'example-runtime',
    script: RUNTIME_SCRIPT,
    essential: false,
    env: {
      ...shared,
      // Sealed as deployments' databases are: their roles cannot connect to the example's.
      DATABASE_URL: await server.sealedDatabase('berth_example'),
      BERTH_GRAPH_CONFIG: EXAMPLE_GRAPH_CONFIG,
      BERTH_RUNTIME_PORT: runtimePort,
    },
  });
  const controlPlaneUrl = `http://${host}:${controlPlanePort}`;
  const runtimeUrl = `http://${host}:${runtimePort}`;
  await Promise.all([
    supervisor.untilServing(controlPlaneUrl, 120_000),
    supervisor.untilServing(runtimeUrl, 120_000),
  ]);
  forgetRecord = await recordPlatform(env.platformRecordsDir, {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    dataDir: env.dataDir,
    controlPlaneUrl,
    runtimeUrl,
    apiKey: apiKey.key,
    ...(env.databaseUrl ? { databaseUrl: env.databaseUrl } : {}),
  });
  console.log(`\n  Berth is up.`);
  console.log(`  Control plane:            ${controlPlaneUrl}`);
  console.log(`  Example agent runtime:    ${runtimeUrl}  (graphs from ${EXAMPLE_GRAPH_CONFIG})`);
  console.log(`  Database:                 ${server.description}`);
  console.log(`  API key (${apiKey.origin}): ${apiKey.key}`);
  console.log(`  Deploy an application:    npx berth deploy path/to/app\n`);
}
