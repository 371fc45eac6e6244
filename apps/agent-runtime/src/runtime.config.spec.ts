import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadRuntimeConfig, removeSecrets } from './runtime.config.js';

const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex');
const A = sha256('key-a');
const B = sha256('key-b');

describe('loadRuntimeConfig', () => {
  describe('API keys', () => {
    it('takes one key in clear from BERTH_API_KEY', () => {
      expect(loadRuntimeConfig({ BERTH_API_KEY: ' the-key ' }).apiKeys).toEqual({
        kind: 'key',
        key: 'the-key',
      });
    });

    it('takes a comma-separated list of SHA-256 digests from BERTH_API_KEY_SHA256', () => {
      expect(loadRuntimeConfig({ BERTH_API_KEY_SHA256: A }).apiKeys).toEqual({
        kind: 'sha256',
        digests: [A],
      });
      expect(loadRuntimeConfig({ BERTH_API_KEY_SHA256: ` ${A} , ${B},${A}` }).apiKeys).toEqual({
        kind: 'sha256',
        digests: [A, B],
      });
    });

    it('needs exactly one of the two', () => {
      expect(() => loadRuntimeConfig({})).toThrow(ConfigError);
      expect(() => loadRuntimeConfig({})).toThrow(
        /exactly one of BERTH_API_KEY .*and BERTH_API_KEY_SHA256.*neither is set/,
      );
      expect(() => loadRuntimeConfig({ BERTH_API_KEY: ' ', BERTH_API_KEY_SHA256: '' })).toThrow(
        /neither is set/,
      );
      expect(() => loadRuntimeConfig({ BERTH_API_KEY: 'k', BERTH_API_KEY_SHA256: A })).toThrow(
        /exactly one of BERTH_API_KEY and BERTH_API_KEY_SHA256, not both/,
      );
    });

    it('refuses digests that are not 64 lowercase hex digits, without echoing them', () => {
      for (const value of [A.toUpperCase(), A.slice(2), `${A}00`, `${A},`, `${A},,${B}`, 'abc']) {
        let message = '';
        try {
          loadRuntimeConfig({ BERTH_API_KEY_SHA256: value });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as Error).message;
        }
        expect(message).toMatch(/BERTH_API_KEY_SHA256 .*64 lowercase hex digits: entry \d is not/);
        expect(message).not.toContain(A.slice(2, 20));
      }
    });
  });

  describe('BERTH_EXIT_WITH_PARENT', () => {
    it('is off unless true', () => {
      expect(loadRuntimeConfig({ BERTH_API_KEY: 'k' }).exitWithParent).toBe(false);
      expect(
        loadRuntimeConfig({ BERTH_API_KEY: 'k', BERTH_EXIT_WITH_PARENT: 'false' }).exitWithParent,
      ).toBe(false);
      expect(
        loadRuntimeConfig({ BERTH_API_KEY: 'k', BERTH_EXIT_WITH_PARENT: ' true ' }).exitWithParent,
      ).toBe(true);
    });

    it('refuses anything but true or false', () => {
      expect(() =>
        loadRuntimeConfig({ BERTH_API_KEY: 'k', BERTH_EXIT_WITH_PARENT: 'yes' }),
      ).toThrow(/BERTH_EXIT_WITH_PARENT must be true or false, got "yes"/);
    });
  });

  describe('tracing', () => {
    const base = { BERTH_API_KEY: 'k' };

    it('is off with neither variable', () => {
      expect(loadRuntimeConfig(base).tracing).toBeUndefined();
    });

    it('takes an absolute http(s) endpoint and a token', () => {
      expect(
        loadRuntimeConfig({
          ...base,
          BERTH_TRACING_ENDPOINT: 'https://control.example:8080/internal/runs',
          BERTH_TRACING_TOKEN: ' tok ',
        }).tracing,
      ).toEqual({ endpoint: 'https://control.example:8080/internal/runs', token: 'tok' });
      expect(
        loadRuntimeConfig({
          ...base,
          BERTH_TRACING_ENDPOINT: 'http://127.0.0.1:9/x',
          BERTH_TRACING_TOKEN: 't',
        }).tracing?.endpoint,
      ).toBe('http://127.0.0.1:9/x');
    });

    it('needs both or neither, and never echoes the token', () => {
      expect(() =>
        loadRuntimeConfig({ ...base, BERTH_TRACING_ENDPOINT: 'http://127.0.0.1:9/x' }),
      ).toThrow(
        /both BERTH_TRACING_ENDPOINT and BERTH_TRACING_TOKEN, or neither: only BERTH_TRACING_ENDPOINT/,
      );
      let message = '';
      try {
        loadRuntimeConfig({ ...base, BERTH_TRACING_TOKEN: 'very-secret-token' });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/or neither: only BERTH_TRACING_TOKEN is set/);
      expect(message).not.toContain('very-secret-token');
    });

    it('refuses an endpoint that is not an absolute http(s) URL', () => {
      for (const endpoint of ['/runs', 'control-plane:8080/runs', 'ftp://host/runs', 'file:///x']) {
        expect(() =>
          loadRuntimeConfig({
            ...base,
            BERTH_TRACING_ENDPOINT: endpoint,
            BERTH_TRACING_TOKEN: 't',
          }),
        ).toThrow(/BERTH_TRACING_ENDPOINT must be an absolute http\(s\) URL/);
      }
    });
  });

  it('keeps its defaults', () => {
    const config = loadRuntimeConfig({ BERTH_API_KEY: 'k' });
    expect(config.port).toBe(8123);
    expect(config.host).toBe('127.0.0.1');
    expect(config.workerConcurrency).toBe(1000);
    expect(config.runWorkers).toBe(true);
    expect(config.serveApi).toBe(true);
  });

  describe('roles', () => {
    it('serves the API only, or runs the queue only', () => {
      const api = loadRuntimeConfig({ BERTH_API_KEY: 'k', BERTH_RUN_WORKERS: 'false' });
      expect([api.serveApi, api.runWorkers]).toEqual([true, false]);
      const queue = loadRuntimeConfig({ BERTH_API_KEY: 'k', BERTH_SERVE_API: 'false' });
      expect([queue.serveApi, queue.runWorkers]).toEqual([false, true]);
    });

    it('refuses a process with nothing to do', () => {
      expect(() =>
        loadRuntimeConfig({
          BERTH_API_KEY: 'k',
          BERTH_RUN_WORKERS: 'false',
          BERTH_SERVE_API: 'false',
        }),
      ).toThrow(ConfigError);
    });
  });
});

describe('removeSecrets', () => {
  it('removes the keys and the tracing token, and nothing else', () => {
    const env: Record<string, string | undefined> = {
      BERTH_API_KEY: 'k',
      BERTH_API_KEY_SHA256: A,
      BERTH_TRACING_TOKEN: 't',
      BERTH_TRACING_ENDPOINT: 'http://127.0.0.1:9/x',
      BERTH_RUNTIME_PORT: '8123',
    };
    removeSecrets(env);
    expect(env).toEqual({
      BERTH_TRACING_ENDPOINT: 'http://127.0.0.1:9/x',
      BERTH_RUNTIME_PORT: '8123',
    });
    expect('BERTH_API_KEY' in env).toBe(false);
  });
});
