import { describe, expect, it } from '@jest/globals';
import { loadJailSettings, runtimeHeapMegabytes } from './jail-settings.js';

describe('runtimeHeapMegabytes', () => {
  it('gives a jailed runtime three quarters of what its limit leaves beside its /tmp', () => {
    expect(runtimeHeapMegabytes(loadJailSettings({}))).toBe(1344);
    const small = loadJailSettings({ BERTH_RUNTIME_MEMORY_MB: '1024', BERTH_JAIL_TMP_MB: '64' });
    expect(runtimeHeapMegabytes(small)).toBe(720);
  });

  it('keeps half the limit in reach when /tmp is as large as the limit, and never less than 64 MiB', () => {
    const tmpAsLarge = loadJailSettings({ BERTH_RUNTIME_MEMORY_MB: '512', BERTH_JAIL_TMP_MB: '512' });
    expect(runtimeHeapMegabytes(tmpAsLarge)).toBe(192);
    const tiny = loadJailSettings({ BERTH_RUNTIME_MEMORY_MB: '64' });
    expect(runtimeHeapMegabytes(tiny)).toBe(64);
  });
});

describe('BERTH_JAIL_NETWORK', () => {
  it('gives each jail a network of its own unless the host is asked for', () => {
    expect(loadJailSettings({}).sharesHostNetwork).toBe(false);
    expect(loadJailSettings({ BERTH_JAIL_NETWORK: 'own' }).sharesHostNetwork).toBe(false);
    expect(loadJailSettings({ BERTH_JAIL_NETWORK: 'host' }).sharesHostNetwork).toBe(true);
    expect(() => loadJailSettings({ BERTH_JAIL_NETWORK: 'none' })).toThrow(
      'BERTH_JAIL_NETWORK must be own or host',
    );
  });
});
