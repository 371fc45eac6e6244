import { resolve } from 'node:path';
import { ConfigError, envInteger, envText, PORT_RANGE, type Environment } from '#libs/config';

export { ConfigError };

export interface ControlPlaneConfig {
  /** An external PostgreSQL server; without it an embedded one runs in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** An `esdb://` URL puts the event log in EventStoreDB instead of PostgreSQL. */
  readonly eventStoreUrl: string | undefined;
  readonly port: number;
  readonly host: string;
}

/** The only reader of the environment: everything else gets this object. */
export function loadControlPlaneConfig(env: Environment = process.env): ControlPlaneConfig {
  return {
    databaseUrl: envText(env.DATABASE_URL),
    dataDir: resolve(envText(env.BERTH_DATA_DIR) ?? '.berth'),
    eventStoreUrl: envText(env.EVENTSTORE_URL),
    port: envInteger('BERTH_CONTROL_PLANE_PORT', env.BERTH_CONTROL_PLANE_PORT, 8080, PORT_RANGE),
    host: envText(env.BERTH_HOST) ?? '127.0.0.1',
  };
}
