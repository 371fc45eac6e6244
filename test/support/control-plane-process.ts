import { readableLogs, structuredLogLines } from './readable-logs.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from './free-port.js';
import pg from 'pg';
import { dropDatabase } from '#libs/database';
import { createTestDatabase } from './test-database.js';
import { waitForOk } from './wait-for-ok.js';

const CONTROL_PLANE_MAIN = resolve('dist/apps/control-plane/src/main.js');
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 60_000;
export const TEST_API_KEY = 'cp-test-key-0123456789';
export const TEST_TENANT_ID = '00000000-0000-4000-8000-000000000001';
export const OTHER_TENANT_ID = '22222222-2222-4222-8222-222222222222';
export const OTHER_TENANT_KEY = 'cp-other-tenant-key-0123456789';

export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}

export interface ControlPlaneProcess {
  readonly url: string;
  readonly apiKey: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string;
  readonly child: ChildProcess;
  output(): string;
  /** Its structured log lines (JSON), parsed. */
  logLines(): Record<string, unknown>[];
  /** A JSON request with the test tenant's key (or the one given; null sends none). */
  api<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    key?: string | null,
  ): Promise<ApiResponse<T>>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** SIGKILL and wait: no chance to clean up. */
  kill(): Promise<void>;
  /** Removes what it made: deployment databases, its database, its data directory. */
  removeState(): Promise<void>;
  /** Stops it and removes its state. */
  dispose(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Reuse a data directory and database, as a restart does. */
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly port?: number;
  readonly env?: Readonly<Record<string, string>>;
  /** An embedded PostgreSQL in the data directory instead of a database on the test server. */
  readonly embeddedDatabase?: boolean;
  /** Another OS user to run as (the data directory is given to it). */
  readonly runAs?: { readonly uid: number; readonly gid: number };
}

/** The built control plane (`npm test` builds first) as a real process on a real port. */
export async function startControlPlane(
  options: ControlPlaneOptions = {},
): Promise<ControlPlaneProcess> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'berth-cp-')));
  if (options.runAs) await chown(dataDir, options.runAs.uid, options.runAs.gid);
  const database =
    options.databaseUrl || options.embeddedDatabase ? undefined : await createTestDatabase('cp');
  const databaseUrl = options.databaseUrl ?? database?.url ?? '';
  const base = 20_000 + Math.floor(Math.random() * 90) * 100;
  const child = spawn(process.execPath, [CONTROL_PLANE_MAIN], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BERTH_DATA_DIR: dataDir,
      BERTH_API_KEY: TEST_API_KEY,
      BERTH_TENANT_KEYS: `${OTHER_TENANT_ID}:${OTHER_TENANT_KEY}`,
      BERTH_CONTROL_PLANE_PORT: String(port),
      BERTH_HOST: '127.0.0.1',
      BERTH_DEPLOYMENT_PORTS: `${base}-${base + 99}`,
      // Tests deploy from local git repositories, and the service PostgreSQL trusts everyone.
      BERTH_ALLOW_LOCAL_SOURCES: 'true',
      BERTH_ALLOW_UNSEALED_TENANTS: 'true',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    uid: options.runAs?.uid,
    gid: options.runAs?.gid,
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  await waitForOk('The control plane', child, url, () => readableLogs(output), START_TIMEOUT_MS);
  const exited = (): Promise<unknown> =>
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
  const removeState = async (): Promise<void> => {
    // An embedded cluster goes with the data directory.
    if (databaseUrl) await dropDeploymentDatabases(databaseUrl);
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  };
  const stop = async (): Promise<void> => {
    const done = exited();
    child.kill('SIGTERM');
    let grace: NodeJS.Timeout | undefined;
    const hung = await Promise.race([
      done.then(() => false),
      new Promise<boolean>((resolve) => {
        grace = setTimeout(() => {
          resolve(true);
        }, STOP_GRACE_MS);
      }),
    ]);
    clearTimeout(grace);
    if (!hung) return;
    // A shutdown that hangs is a bug of its own: said loudly, with what the process last logged,
    // but it must not hold every later test file hostage.
    console.warn(
      `The control plane did not stop within ${STOP_GRACE_MS} ms of SIGTERM; killed. Its last log:\n` +
        readableLogs(output).slice(-4000),
    );
    child.kill('SIGKILL');
    await done;
  };
  return {
    url,
    apiKey: TEST_API_KEY,
    port,
    dataDir,
    databaseUrl,
    child,
    output: () => readableLogs(output),
    logLines: () => structuredLogLines(output),
    api: async <T>(
      method: string,
      path: string,
      body?: unknown,
      key: string | null = TEST_API_KEY,
    ): Promise<ApiResponse<T>> => {
      const headers: Record<string, string> = {};
      if (key !== null) headers['x-api-key'] = key;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
    },
    stop,
    kill: async () => {
      const done = exited();
      child.kill('SIGKILL');
      await done;
    },
    removeState,
    dispose: async () => {
      await stop();
      await removeState();
    },
  };
}

/**
 * A new process on the stopped one's data directory, database and port, as after a restart;
 * it takes over removing that state.
 */
export async function restartControlPlane(
  previous: ControlPlaneProcess,
  env?: Readonly<Record<string, string>>,
): Promise<ControlPlaneProcess> {
  const next = await startControlPlane({
    dataDir: previous.dataDir,
    databaseUrl: previous.databaseUrl,
    port: previous.port,
    env,
  });
  const removeState = (): Promise<void> => previous.removeState();
  return {
    ...next,
    removeState,
    dispose: async () => {
      await next.stop();
      await removeState();
    },
  };
}

/** Every deployment the control plane ever had may have a database of its own on the server. */
async function dropDeploymentDatabases(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      "select substring(stream_id from 12) as id from es_streams where stream_id like 'deployment-%'",
    );
    for (const { id } of rows) {
      const name = `berth_deployment_${id.replace(/-/g, '')}`;
      await dropDatabase(databaseUrl, name);
      // The deployment's role has the database's name.
      await client.query(`drop role if exists ${client.escapeIdentifier(name)}`);
    }
  } finally {
    await client.end();
  }
}
