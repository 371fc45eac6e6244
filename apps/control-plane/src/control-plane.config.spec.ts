import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { ConfigError, loadControlPlaneConfig } from './control-plane.config.js';

describe('loadControlPlaneConfig', () => {
  it('falls back to the defaults for an empty environment', () => {
    expect(loadControlPlaneConfig({})).toEqual({
      databaseUrl: undefined,
      dataDir: resolve('.berth'),
      eventStoreUrl: undefined,
      port: 8080,
      host: '127.0.0.1',
    });
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
    });
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
});
