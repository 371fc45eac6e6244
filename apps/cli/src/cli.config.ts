import { resolve } from 'node:path';
import { envText, type Environment } from '#libs/config';

/** What the CLI takes from the environment, read once. */
export interface CliEnvironment {
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly apiKey: string | undefined;
  readonly eventStoreUrl: string | undefined;
  readonly host: string | undefined;
  readonly controlPlanePort: string | undefined;
  readonly runtimePort: string | undefined;
}

export function loadCliEnvironment(env: Environment = process.env): CliEnvironment {
  return {
    databaseUrl: envText(env.DATABASE_URL),
    dataDir: resolve(envText(env.BERTH_DATA_DIR) ?? '.berth'),
    apiKey: envText(env.BERTH_API_KEY),
    eventStoreUrl: envText(env.EVENTSTORE_URL),
    host: envText(env.BERTH_HOST),
    controlPlanePort: envText(env.BERTH_CONTROL_PLANE_PORT),
    runtimePort: envText(env.BERTH_RUNTIME_PORT),
  };
}
