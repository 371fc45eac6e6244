import { resolve } from 'node:path';

export interface ControlPlaneConfig {
  /** An external PostgreSQL server; without it an embedded one runs in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** An `esdb://` URL puts the event log in EventStoreDB instead of PostgreSQL. */
  readonly eventStoreUrl: string | undefined;
  readonly port: number;
  readonly host: string;
}

export class ConfigError extends Error {}

type Environment = Readonly<Record<string, string | undefined>>;

/** The only reader of the environment: everything else gets this object. */
export function loadControlPlaneConfig(env: Environment = process.env): ControlPlaneConfig {
  return {
    databaseUrl: nonEmpty(env.DATABASE_URL),
    dataDir: resolve(nonEmpty(env.BERTH_DATA_DIR) ?? '.berth'),
    eventStoreUrl: nonEmpty(env.EVENTSTORE_URL),
    port: port('BERTH_CONTROL_PLANE_PORT', env.BERTH_CONTROL_PLANE_PORT, 8080),
    host: nonEmpty(env.BERTH_HOST) ?? '127.0.0.1',
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function port(name: string, value: string | undefined, fallback: number): number {
  const text = nonEmpty(value);
  if (text === undefined) return fallback;
  const parsed = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65535) {
    throw new ConfigError(`${name} must be a port number from 1 to 65535, got "${text}"`);
  }
  return parsed;
}
