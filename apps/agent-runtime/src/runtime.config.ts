import { MAX_RUN_TIMEOUT_SECONDS } from './common/run-timeout.js';
import { resolve } from 'node:path';
import {
  ConfigError,
  envBoolean,
  envInteger,
  envText as text,
  PORT_RANGE,
  type Environment,
} from '#libs/config';
import { MIN_RUNTIME_CONNECTIONS } from '#libs/deployment-databases';
import { keyFileIn, parseJsonKeys, type MasterKeySources } from '#libs/encryption';

export { ConfigError };

export interface RuntimeConfig {
  /** The application's graph configuration file (langgraph.json). */
  readonly graphConfigPath: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly eventStoreUrl: string | undefined;
  /**
   * Where the master key that wraps the data keys comes from: BERTH_MASTER_KEY, else
   * LANGGRAPH_AES_KEY, else the key file (BERTH_MASTER_KEY_FILE, or `master-key` in the data
   * directory), generated the first time.
   */
  readonly masterKey: MasterKeySources;
  /**
   * False with BERTH_ENCRYPTION=off: the log is written in clear and nothing can be erased from
   * it. For measuring what encryption costs (npm run bench:encryption), never for a tenant.
   */
  readonly encryption: boolean;
  /** LANGGRAPH_AES_JSON_KEYS: the JSON keys whose values the read models keep encrypted. */
  readonly jsonKeys: readonly string[];
  readonly port: number;
  readonly host: string;
  /**
   * A Unix socket to serve on instead of the port (BERTH_RUNTIME_SOCKET): a jailed runtime's,
   * which has no network the control plane shares.
   */
  readonly socket: string | undefined;
  /** The keys every request must carry one of in `x-api-key` (see ApiKeys). */
  readonly apiKeys: ApiKeys;
  /** The most runs one process executes at once (how many below it follows its load). */
  readonly workerConcurrency: number;
  /** How long a worker's claim on a run lasts without a heartbeat. */
  readonly leaseSeconds: number;
  /** How many times a run is tried when its worker dies. */
  readonly maxAttempts: number;
  /** Seconds a run may take (each attempt) unless it names its own `timeout_seconds`. */
  readonly runTimeoutSeconds: number;
  /** Whether this process executes runs (false: API only, for a scaled-out API tier). */
  readonly runWorkers: boolean;
  /** Whether this process serves the API (false: the queue's workers only, with `/ok` and `/metrics`). */
  readonly serveApi: boolean;
  /** Stop, as on SIGTERM, when stdin ends: the parent that spawned this process with a pipe died. */
  readonly exitWithParent: boolean;
  /** Load the application's code again when its files change (`berth dev`). */
  readonly reloadOnChange: boolean;
  /** Refuse to start when any graph fails to load (a deployment's runtime), not only all. */
  readonly everyGraphRequired: boolean;
  /** Where finished runs are reported, when they are. */
  readonly tracing: TracingConfig | undefined;
  /** How often threads whose TTL ran out are looked for and deleted. */
  readonly threadSweepSeconds: number;
  /** How often store items whose TTL ran out are deleted, unless `store.ttl` says. */
  readonly storeSweepSeconds: number;
  /** How often each replica looks for crons that are due. */
  readonly cronPollSeconds: number;
  /** How far ahead of the machine's clock the cron scheduler's runs (0; for tests of catch-up). */
  readonly cronClockAheadSeconds: number;
  /**
   * The most connections this process opens to its database, pools and LISTEN connections
   * together (`BERTH_DATABASE_CONNECTIONS`, set by the control plane to fit the deployment's
   * role); unset, each pool opens up to 10.
   */
  readonly databaseConnections: number | undefined;
}

/** One key in clear (`BERTH_API_KEY`), or the SHA-256 digests of the keys (`BERTH_API_KEY_SHA256`). */
export type ApiKeys =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'sha256'; readonly digests: readonly string[] };

export interface TracingConfig {
  /** An absolute http(s) URL that finished runs are POSTed to. */
  readonly endpoint: string;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token: string;
  /**
   * The Unix socket the POSTs go through to the endpoint's host (BERTH_TRACING_SOCKET): a jailed
   * runtime's, whose network does not reach the control plane's port.
   */
  readonly socket?: string;
}

/**
 * Variables the application's graphs must not see: `main` removes them from the environment
 * after reading it, before the application is loaded.
 */
export const SECRET_VARIABLES = [
  'BERTH_API_KEY',
  'BERTH_API_KEY_SHA256',
  'BERTH_TRACING_TOKEN',
  'BERTH_MASTER_KEY',
  'LANGGRAPH_AES_KEY',
] as const;

/** Removes the secret variables from `env` (the process environment, which graphs can read). */
export function removeSecrets(env: Record<string, string | undefined>): void {
  for (const name of SECRET_VARIABLES) Reflect.deleteProperty(env, name);
}

/** Where a runtime keeps its events and read models. */
export type StorageConfig = Pick<
  RuntimeConfig,
  'databaseUrl' | 'dataDir' | 'eventStoreUrl' | 'masterKey' | 'jsonKeys' | 'encryption'
>;

/** The storage part alone, for tools that open a runtime's database without serving it. */
export function loadStorageConfig(env: Environment = process.env): StorageConfig {
  const dataDir = resolve(text(env.BERTH_DATA_DIR) ?? '.berth');
  const keyFile = text(env.BERTH_MASTER_KEY_FILE);
  return {
    databaseUrl: text(env.DATABASE_URL),
    dataDir,
    eventStoreUrl: text(env.EVENTSTORE_URL),
    masterKey: {
      berthMasterKey: text(env.BERTH_MASTER_KEY),
      langgraphAesKey: env.LANGGRAPH_AES_KEY || undefined,
      keyFile: keyFile ? resolve(keyFile) : keyFileIn(dataDir),
    },
    jsonKeys: parseJsonKeys(env.LANGGRAPH_AES_JSON_KEYS),
    encryption: text(env.BERTH_ENCRYPTION) !== 'off',
  };
}

/** Whether this process is a spare that waits on stdin for the rest of its environment. */
export function isSpare(env: Environment = process.env): boolean {
  return envBoolean('BERTH_AWAIT_ASSIGNMENT', env.BERTH_AWAIT_ASSIGNMENT);
}

/** What the process does: serve the API, run the queue's runs, or both (the default). */
function rolesOf(env: Environment): Pick<RuntimeConfig, 'runWorkers' | 'serveApi'> {
  const runWorkers = text(env.BERTH_RUN_WORKERS) !== 'false';
  const serveApi = text(env.BERTH_SERVE_API) !== 'false';
  if (!runWorkers && !serveApi) {
    throw new ConfigError(
      'BERTH_RUN_WORKERS=false and BERTH_SERVE_API=false leave the process nothing to do: unset one',
    );
  }
  return { runWorkers, serveApi };
}

/**
 * The runtime's settings, read from the environment once at start-up: everything else gets this
 * object (main.ts alone also reads the environment, to hand the application its own variables).
 */
export function loadRuntimeConfig(env: Environment = process.env): RuntimeConfig {
  return {
    graphConfigPath: resolve(text(env.BERTH_GRAPH_CONFIG) ?? 'langgraph.json'),
    ...loadStorageConfig(env),
    port: envInteger('BERTH_RUNTIME_PORT', env.BERTH_RUNTIME_PORT, 8123, PORT_RANGE),
    host: text(env.BERTH_HOST) ?? '127.0.0.1',
    socket: text(env.BERTH_RUNTIME_SOCKET),
    apiKeys: apiKeysOf(env),
    workerConcurrency: envInteger('BERTH_WORKER_CONCURRENCY', env.BERTH_WORKER_CONCURRENCY, 1000, {
      min: 1,
      max: 100_000,
    }),
    leaseSeconds: envInteger('BERTH_RUN_LEASE_SECONDS', env.BERTH_RUN_LEASE_SECONDS, 15, {
      min: 2,
      max: 3600,
    }),
    maxAttempts: envInteger('BERTH_RUN_MAX_ATTEMPTS', env.BERTH_RUN_MAX_ATTEMPTS, 3, {
      min: 1,
      max: 100,
    }),
    runTimeoutSeconds: envInteger(
      'BERTH_RUN_TIMEOUT_SECONDS',
      env.BERTH_RUN_TIMEOUT_SECONDS,
      3600,
      { min: 1, max: MAX_RUN_TIMEOUT_SECONDS },
    ),
    ...rolesOf(env),
    exitWithParent: envBoolean('BERTH_EXIT_WITH_PARENT', env.BERTH_EXIT_WITH_PARENT),
    reloadOnChange: envBoolean('BERTH_RELOAD', env.BERTH_RELOAD),
    everyGraphRequired: envBoolean('BERTH_REQUIRE_EVERY_GRAPH', env.BERTH_REQUIRE_EVERY_GRAPH),
    tracing: tracingOf(env),
    threadSweepSeconds: envInteger(
      'BERTH_THREAD_SWEEP_SECONDS',
      env.BERTH_THREAD_SWEEP_SECONDS,
      60,
      {
        min: 1,
        max: 86_400,
      },
    ),
    storeSweepSeconds: envInteger('BERTH_STORE_SWEEP_SECONDS', env.BERTH_STORE_SWEEP_SECONDS, 60, {
      min: 1,
      max: 86_400,
    }),
    cronPollSeconds: envInteger('BERTH_CRON_POLL_SECONDS', env.BERTH_CRON_POLL_SECONDS, 5, {
      min: 1,
      max: 60,
    }),
    cronClockAheadSeconds: envInteger(
      'BERTH_CRON_CLOCK_AHEAD_SECONDS',
      env.BERTH_CRON_CLOCK_AHEAD_SECONDS,
      0,
      { min: 0, max: 86_400 },
    ),
    databaseConnections:
      text(env.BERTH_DATABASE_CONNECTIONS) === undefined
        ? undefined
        : envInteger('BERTH_DATABASE_CONNECTIONS', env.BERTH_DATABASE_CONNECTIONS, 0, {
            min: MIN_RUNTIME_CONNECTIONS,
            max: 10_000,
          }),
  };
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function apiKeysOf(env: Environment): ApiKeys {
  const key = text(env.BERTH_API_KEY);
  const digests = text(env.BERTH_API_KEY_SHA256);
  if (key !== undefined && digests !== undefined) {
    throw new ConfigError('Set exactly one of BERTH_API_KEY and BERTH_API_KEY_SHA256, not both');
  }
  if (key !== undefined) return { kind: 'key', key };
  if (digests === undefined) {
    throw new ConfigError(
      'Set exactly one of BERTH_API_KEY (the key) and BERTH_API_KEY_SHA256 (the SHA-256 ' +
        'digests of the keys): neither is set (berth dev and npm start generate a key)',
    );
  }
  const list = digests.split(',').map((digest) => digest.trim());
  list.forEach((digest, index) => {
    if (!SHA256_HEX.test(digest)) {
      throw new ConfigError(
        `BERTH_API_KEY_SHA256 must be a comma-separated list of SHA-256 digests, each 64 ` +
          `lowercase hex digits: entry ${index + 1} is not`,
      );
    }
  });
  return { kind: 'sha256', digests: [...new Set(list)] };
}

function tracingOf(env: Environment): TracingConfig | undefined {
  const endpoint = text(env.BERTH_TRACING_ENDPOINT);
  const token = text(env.BERTH_TRACING_TOKEN);
  if (endpoint === undefined && token === undefined) return undefined;
  if (endpoint === undefined || token === undefined) {
    throw new ConfigError(
      'Set both BERTH_TRACING_ENDPOINT and BERTH_TRACING_TOKEN, or neither: only ' +
        `${endpoint === undefined ? 'BERTH_TRACING_TOKEN' : 'BERTH_TRACING_ENDPOINT'} is set`,
    );
  }
  // The value is not echoed: a URL may carry credentials.
  const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
  if (url === undefined) {
    throw new ConfigError('BERTH_TRACING_ENDPOINT must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `BERTH_TRACING_ENDPOINT must be an absolute http(s) URL, not ${url.protocol.slice(0, -1)}`,
    );
  }
  const socket = text(env.BERTH_TRACING_SOCKET);
  return socket === undefined
    ? { endpoint: url.href, token }
    : { endpoint: url.href, token, socket };
}
