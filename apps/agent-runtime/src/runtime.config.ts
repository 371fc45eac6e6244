import { resolve } from 'node:path';
import {
  ConfigError,
  envInteger,
  envText as text,
  PORT_RANGE,
  type Environment,
} from '#libs/config';

export { ConfigError };

export interface RuntimeConfig {
  /** The application's graph configuration file (langgraph.json). */
  readonly graphConfigPath: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly eventStoreUrl: string | undefined;
  readonly port: number;
  readonly host: string;
  /** The key every request must carry in `x-api-key`. */
  readonly apiKey: string;
  /** How many runs one process executes at once. */
  readonly workerConcurrency: number;
  /** How long a worker's claim on a run lasts without a heartbeat. */
  readonly leaseSeconds: number;
  /** How many times a run is tried when its worker dies. */
  readonly maxAttempts: number;
  /** Whether this process executes runs (false: API only, for a scaled-out API tier). */
  readonly runWorkers: boolean;
}

/** The only reader of the environment in the runtime: everything else gets this object. */
export function loadRuntimeConfig(env: Environment = process.env): RuntimeConfig {
  const apiKey = text(env.BERTH_API_KEY);
  if (!apiKey) {
    throw new ConfigError('BERTH_API_KEY is not set (berth dev and npm start generate one)');
  }
  return {
    graphConfigPath: resolve(text(env.BERTH_GRAPH_CONFIG) ?? 'langgraph.json'),
    databaseUrl: text(env.DATABASE_URL),
    dataDir: resolve(text(env.BERTH_DATA_DIR) ?? '.berth'),
    eventStoreUrl: text(env.EVENTSTORE_URL),
    port: envInteger('BERTH_RUNTIME_PORT', env.BERTH_RUNTIME_PORT, 8123, PORT_RANGE),
    host: text(env.BERTH_HOST) ?? '127.0.0.1',
    apiKey,
    workerConcurrency: envInteger('BERTH_WORKER_CONCURRENCY', env.BERTH_WORKER_CONCURRENCY, 16, {
      min: 1,
      max: 1000,
    }),
    leaseSeconds: envInteger('BERTH_RUN_LEASE_SECONDS', env.BERTH_RUN_LEASE_SECONDS, 15, {
      min: 2,
      max: 3600,
    }),
    maxAttempts: envInteger('BERTH_RUN_MAX_ATTEMPTS', env.BERTH_RUN_MAX_ATTEMPTS, 3, {
      min: 1,
      max: 100,
    }),
    runWorkers: text(env.BERTH_RUN_WORKERS) !== 'false',
  };
}
