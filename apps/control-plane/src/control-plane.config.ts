import { resolve } from 'node:path';
import { loadJailSettings, type JailSettings } from './isolation/jail-settings.js';
import {
  ConfigError,
  envBoolean,
  envInteger,
  envText,
  PORT_RANGE,
  type Environment,
} from '#libs/config';

export { ConfigError };

/** The tenant that BERTH_API_KEY belongs to unless BERTH_TENANT_ID names another. */
export const DEFAULT_TENANT_ID = '00000000-0000-4000-8000-000000000001';

export interface TenantKey {
  readonly tenantId: string;
  readonly key: string;
}

export interface ControlPlaneConfig {
  /** An external PostgreSQL server; without it an embedded one runs in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** An `esdb://` URL puts the event log in EventStoreDB instead of PostgreSQL. */
  readonly eventStoreUrl: string | undefined;
  readonly port: number;
  readonly host: string;
  /** Every accepted API key and the tenant it acts for. */
  readonly tenantKeys: readonly TenantKey[];
  /** Base64 of 32 bytes; without it a key is generated once and kept in `dataDir`. */
  readonly secretsKey: Buffer | undefined;
  /** The ports the local listener gives deployments, each keeping its own across revisions. */
  readonly deploymentPorts: { readonly min: number; readonly max: number };
  /** The URL clients reach the control plane at, for the upload URLs it issues. */
  readonly publicUrl: string | undefined;
  /** Whether this process runs the built-in local listener. */
  readonly localListener: boolean;
  /** Whether git sources may be local paths or file:// URLs (they read the platform's disk). */
  readonly allowLocalSources: boolean;
  /** Whether a second tenant's keys are accepted when tenants cannot be sealed from each other. */
  readonly allowUnsealedTenants: boolean;
  /** What one tenant may take of the machine, so that it never starves the others. */
  readonly limits: TenantLimits;
  /** Each jailed build's and runtime's memory, processes, /tmp and disk; the OS id registry. */
  readonly jail: JailSettings;
}

export interface TenantLimits {
  /** Each deployment's database role's CONNECTION LIMIT; each of its runtimes gets half. */
  readonly deploymentDbConnections: number;
  /** Connections of the database server kept for the platform's own processes. */
  readonly dbReservedConnections: number;
  /** Deployments a tenant may have at once. */
  readonly tenantMaxDeployments: number;
  /** WebSockets open at once through each deployment's port; one more is refused 429. */
  readonly deploymentMaxWebSockets: number;
}

/** Two runtimes of 5 (the least one works with) side by side during a rollout. */
export const MIN_DEPLOYMENT_DB_CONNECTIONS = 10;

function tenantLimits(env: Environment): TenantLimits {
  return {
    deploymentDbConnections: envInteger(
      'BERTH_DEPLOYMENT_DB_CONNECTIONS',
      env.BERTH_DEPLOYMENT_DB_CONNECTIONS,
      20,
      { min: MIN_DEPLOYMENT_DB_CONNECTIONS, max: 10_000 },
    ),
    dbReservedConnections: envInteger(
      'BERTH_DB_RESERVED_CONNECTIONS',
      env.BERTH_DB_RESERVED_CONNECTIONS,
      50,
      { min: 0, max: 100_000 },
    ),
    tenantMaxDeployments: envInteger(
      'BERTH_TENANT_MAX_DEPLOYMENTS',
      env.BERTH_TENANT_MAX_DEPLOYMENTS,
      20,
      { min: 1, max: 100_000 },
    ),
    deploymentMaxWebSockets: envInteger(
      'BERTH_DEPLOYMENT_MAX_WEBSOCKETS',
      env.BERTH_DEPLOYMENT_MAX_WEBSOCKETS,
      1000,
      { min: 1, max: 100_000 },
    ),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function tenantId(name: string, value: string): string {
  const id = value.toLowerCase();
  if (!UUID.test(id)) throw new ConfigError(`${name}: "${value}" is not a uuid`);
  return id;
}

function tenantKeys(env: Environment): TenantKey[] {
  const keys: TenantKey[] = [];
  const main = envText(env.BERTH_API_KEY);
  if (main) {
    const id = envText(env.BERTH_TENANT_ID);
    keys.push({ tenantId: id ? tenantId('BERTH_TENANT_ID', id) : DEFAULT_TENANT_ID, key: main });
  }
  for (const entry of (envText(env.BERTH_TENANT_KEYS) ?? '').split(',')) {
    if (!entry.trim()) continue;
    const separator = entry.indexOf(':');
    const key = entry.slice(separator + 1).trim();
    if (separator < 0 || !key) {
      throw new ConfigError(
        'BERTH_TENANT_KEYS must be a comma-separated list of <tenant-uuid>:<key>',
      );
    }
    keys.push({ tenantId: tenantId('BERTH_TENANT_KEYS', entry.slice(0, separator).trim()), key });
  }
  if (keys.length === 0) {
    throw new ConfigError('BERTH_API_KEY is not set (npm start generates one)');
  }
  return keys;
}

function secretsKey(value: string | undefined): Buffer | undefined {
  if (value === undefined) return undefined;
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) throw new ConfigError('BERTH_SECRETS_KEY must be base64 of 32 bytes');
  return key;
}

function portRange(value: string | undefined): { min: number; max: number } {
  const text = value ?? '8200-8999';
  const match = /^(\d+)-(\d+)$/.exec(text);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (!match || min < 1 || max > 65535 || min > max) {
    throw new ConfigError(
      `BERTH_DEPLOYMENT_PORTS must be a range such as 8200-8999, got "${text}"`,
    );
  }
  return { min, max };
}

/** The only reader of the environment: everything else gets this object. */
export function loadControlPlaneConfig(env: Environment = process.env): ControlPlaneConfig {
  return {
    databaseUrl: envText(env.DATABASE_URL),
    dataDir: resolve(envText(env.BERTH_DATA_DIR) ?? '.berth'),
    eventStoreUrl: envText(env.EVENTSTORE_URL),
    port: envInteger('BERTH_CONTROL_PLANE_PORT', env.BERTH_CONTROL_PLANE_PORT, 8080, PORT_RANGE),
    host: envText(env.BERTH_HOST) ?? '127.0.0.1',
    tenantKeys: tenantKeys(env),
    secretsKey: secretsKey(envText(env.BERTH_SECRETS_KEY)),
    deploymentPorts: portRange(envText(env.BERTH_DEPLOYMENT_PORTS)),
    publicUrl: envText(env.BERTH_PUBLIC_URL)?.replace(/\/+$/, ''),
    localListener: envText(env.BERTH_LOCAL_LISTENER) !== 'false',
    allowLocalSources: envBoolean('BERTH_ALLOW_LOCAL_SOURCES', env.BERTH_ALLOW_LOCAL_SOURCES),
    allowUnsealedTenants: envBoolean(
      'BERTH_ALLOW_UNSEALED_TENANTS',
      env.BERTH_ALLOW_UNSEALED_TENANTS,
    ),
    limits: tenantLimits(env),
    jail: loadJailSettings(env),
  };
}
