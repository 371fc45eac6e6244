import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import {
  ConfigError,
  DEFAULT_TENANT_ID,
  loadControlPlaneConfig as load,
} from './control-plane.config.js';

const KEY = { BERTH_API_KEY: 'key-0123456789' };
const loadControlPlaneConfig = (env: Record<string, string>) => load({ ...KEY, ...env });

const MIB = 1024 * 1024;

/** What a tenant and each jail may use when nothing is set. */
const DEFAULT_LIMITS = {
  limits: {
    deploymentDbConnections: 20,
    dbReservedConnections: 50,
    tenantMaxDeployments: 20,
    deploymentMaxWebSockets: 1000,
  },
  jail: {
    build: { memoryBytes: 4096 * MIB, pids: 1024 },
    runtime: { memoryBytes: 2048 * MIB, pids: 512 },
    tmpBytes: 256 * MIB,
    deploymentDiskBytes: 5120 * MIB,
    osIdRegistry: '/var/lib/berth/os-ids',
    sharesHostNetwork: false,
  },
};

describe('loadControlPlaneConfig', () => {
  it('falls back to the defaults for an empty environment', () => {
    expect(loadControlPlaneConfig({})).toEqual({
      databaseUrl: undefined,
      dataDir: resolve('.berth'),
      eventStoreUrl: undefined,
      port: 8080,
      host: '127.0.0.1',
      tenantKeys: [{ tenantId: DEFAULT_TENANT_ID, key: 'key-0123456789' }],
      secretsKey: undefined,
      deploymentPorts: { min: 8200, max: 8999 },
      publicUrl: undefined,
      localListener: true,
      allowLocalSources: false,
      allowUnsealedTenants: false,
      ...DEFAULT_LIMITS,
    });
  });

  it("reads each jail's limits in MiB and processes, and refuses a limit too small to run", () => {
    const { jail } = loadControlPlaneConfig({
      BERTH_RUNTIME_MEMORY_MB: '512',
      BERTH_BUILD_PROCESSES: '64',
      BERTH_DEPLOYMENT_DISK_MB: '100',
      BERTH_OS_ID_REGISTRY: '/srv/berth/ids',
    });
    expect(jail.runtime.memoryBytes).toBe(512 * MIB);
    expect(jail.build.pids).toBe(64);
    expect(jail.deploymentDiskBytes).toBe(100 * MIB);
    expect(jail.osIdRegistry).toBe('/srv/berth/ids');
    expect(() => loadControlPlaneConfig({ BERTH_RUNTIME_MEMORY_MB: '8' })).toThrow(
      'BERTH_RUNTIME_MEMORY_MB must be a whole number from 16',
    );
  });

  it('resolves the default data directory against the working directory', () => {
    const { dataDir } = loadControlPlaneConfig({});

    expect(dataDir).toBe(resolve(process.cwd(), '.berth'));
  });

  it('treats blank values as missing', () => {
    expect(
      loadControlPlaneConfig({
        DATABASE_URL: '   ',
        BERTH_DATA_DIR: '',
        EVENTSTORE_URL: '\t',
        BERTH_CONTROL_PLANE_PORT: ' ',
        BERTH_HOST: '',
      }),
    ).toEqual(loadControlPlaneConfig({}));
  });

  it('reads every variable it is given, trimmed', () => {
    expect(
      loadControlPlaneConfig({
        DATABASE_URL: ' postgres://berth@db:5432/berth ',
        BERTH_DATA_DIR: '/var/lib/berth',
        EVENTSTORE_URL: 'esdb://events:2113?tls=false',
        BERTH_CONTROL_PLANE_PORT: ' 9000 ',
        BERTH_HOST: '0.0.0.0',
      }),
    ).toEqual({
      databaseUrl: 'postgres://berth@db:5432/berth',
      dataDir: '/var/lib/berth',
      eventStoreUrl: 'esdb://events:2113?tls=false',
      port: 9000,
      host: '0.0.0.0',
      tenantKeys: [{ tenantId: DEFAULT_TENANT_ID, key: 'key-0123456789' }],
      secretsKey: undefined,
      deploymentPorts: { min: 8200, max: 8999 },
      publicUrl: undefined,
      localListener: true,
      allowLocalSources: false,
      allowUnsealedTenants: false,
      ...DEFAULT_LIMITS,
    });
  });

  it('reads the two opt-ins that loosen isolation, and refuses what is not true or false', () => {
    const config = loadControlPlaneConfig({
      BERTH_ALLOW_LOCAL_SOURCES: 'true',
      BERTH_ALLOW_UNSEALED_TENANTS: ' true ',
    });
    expect(config).toMatchObject({ allowLocalSources: true, allowUnsealedTenants: true });
    expect(() => loadControlPlaneConfig({ BERTH_ALLOW_LOCAL_SOURCES: 'yes' })).toThrow(
      /BERTH_ALLOW_LOCAL_SOURCES must be true or false/,
    );
  });

  it('reads the limits that keep one tenant from starving the others, within their bounds', () => {
    const config = loadControlPlaneConfig({
      BERTH_DEPLOYMENT_DB_CONNECTIONS: '12',
      BERTH_DB_RESERVED_CONNECTIONS: '0',
      BERTH_TENANT_MAX_DEPLOYMENTS: ' 3 ',
      BERTH_DEPLOYMENT_MAX_WEBSOCKETS: '5',
    });
    expect(config.limits).toEqual({
      deploymentDbConnections: 12,
      dbReservedConnections: 0,
      tenantMaxDeployments: 3,
      deploymentMaxWebSockets: 5,
    });
    // Fewer than 10 cannot hold two runtimes of 5 side by side during a rollout.
    expect(() => loadControlPlaneConfig({ BERTH_DEPLOYMENT_DB_CONNECTIONS: '9' })).toThrow(
      /BERTH_DEPLOYMENT_DB_CONNECTIONS must be a whole number from 10/,
    );
    expect(() => loadControlPlaneConfig({ BERTH_TENANT_MAX_DEPLOYMENTS: '0' })).toThrow(
      /BERTH_TENANT_MAX_DEPLOYMENTS must be a whole number from 1/,
    );
    expect(() => loadControlPlaneConfig({ BERTH_DEPLOYMENT_MAX_WEBSOCKETS: '0' })).toThrow(
      /BERTH_DEPLOYMENT_MAX_WEBSOCKETS must be a whole number from 1/,
    );
  });

  it('resolves a relative data directory to an absolute path', () => {
    expect(loadControlPlaneConfig({ BERTH_DATA_DIR: 'state/berth' }).dataDir).toBe(
      resolve('state/berth'),
    );
  });

  it('reads only the environment object it is passed', () => {
    const saved = process.env.BERTH_CONTROL_PLANE_PORT;
    process.env.BERTH_CONTROL_PLANE_PORT = '1234';
    try {
      expect(loadControlPlaneConfig({}).port).toBe(8080);
    } finally {
      if (saved === undefined) delete process.env.BERTH_CONTROL_PLANE_PORT;
      else process.env.BERTH_CONTROL_PLANE_PORT = saved;
    }
  });

  it.each(['1', '65535'])('accepts the boundary port %s', (text) => {
    expect(loadControlPlaneConfig({ BERTH_CONTROL_PLANE_PORT: text }).port).toBe(Number(text));
  });

  it.each(['0', '65536', '-1', '80.5', 'http', '8080abc', 'NaN', 'Infinity'])(
    'rejects the port %j with a ConfigError naming the variable',
    (text) => {
      const load = (): unknown => loadControlPlaneConfig({ BERTH_CONTROL_PLANE_PORT: text });

      expect(load).toThrow(ConfigError);
      expect(load).toThrow(/^BERTH_CONTROL_PLANE_PORT must be a whole number from 1 to 65535/);
      expect(load).toThrow(`got "${text}"`);
    },
  );

  it('requires at least one API key', () => {
    expect(() => load({})).toThrow(/BERTH_API_KEY is not set/);
  });

  it('gives BERTH_API_KEY to BERTH_TENANT_ID and reads more tenants from BERTH_TENANT_KEYS', () => {
    const other = '11111111-2222-4333-8444-555555555555';
    const config = load({
      BERTH_API_KEY: 'main',
      BERTH_TENANT_ID: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE',
      BERTH_TENANT_KEYS: ` ${other}:second , ${other}:third:with:colons`,
    });
    expect(config.tenantKeys).toEqual([
      { tenantId: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee', key: 'main' },
      { tenantId: other, key: 'second' },
      { tenantId: other, key: 'third:with:colons' },
    ]);
  });

  it.each([['not-a-uuid:key'], ['11111111-2222-4333-8444-555555555555:'], ['nokey']])(
    'refuses the tenant key entry %j',
    (entry) => {
      expect(() => load({ BERTH_TENANT_KEYS: entry })).toThrow(ConfigError);
    },
  );

  it('reads the secrets key, the deployment port range and the public URL', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadControlPlaneConfig({
      BERTH_SECRETS_KEY: key.toString('base64'),
      BERTH_DEPLOYMENT_PORTS: '9100-9199',
      BERTH_PUBLIC_URL: 'https://berth.example.com/',
      BERTH_LOCAL_LISTENER: 'false',
    });
    expect(config.secretsKey).toEqual(key);
    expect(config.deploymentPorts).toEqual({ min: 9100, max: 9199 });
    expect(config.publicUrl).toBe('https://berth.example.com');
    expect(config.localListener).toBe(false);
  });

  it.each([
    ['BERTH_SECRETS_KEY', 'c2hvcnQ='],
    ['BERTH_DEPLOYMENT_PORTS', '9000'],
    ['BERTH_DEPLOYMENT_PORTS', '9200-9100'],
  ])('refuses %s=%j', (name, value) => {
    expect(() => loadControlPlaneConfig({ [name]: value })).toThrow(ConfigError);
  });
});
