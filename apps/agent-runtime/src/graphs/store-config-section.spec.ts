import { describe, expect, it } from '@jest/globals';
import { parseStoreSection } from './store-config-section.js';

const fail = (problem: string): never => {
  throw new Error(problem);
};

describe('the store section of langgraph.json', () => {
  it('reads index and ttl, with a module path or a provider for embed', () => {
    const warnings: string[] = [];
    const section = parseStoreSection(
      {
        index: { embed: './src/embed.ts:embed', dims: 64, fields: ['text'] },
        ttl: { default_ttl: 30, refresh_on_read: false, sweep_interval_minutes: 5 },
        extra: 1,
      },
      '/app',
      fail,
      (warning) => warnings.push(warning),
    );
    expect(section).toEqual({
      index: {
        embed: { kind: 'module', file: '/app/src/embed.ts', exportName: 'embed' },
        dims: 64,
        fields: ['text'],
      },
      ttl: { defaultTtlMinutes: 30, refreshOnRead: false, sweepIntervalMinutes: 5 },
    });
    expect(warnings).toEqual(['"store.extra" is not a key Berth knows: it is ignored']);
    expect(
      parseStoreSection(
        { index: { embed: 'openai:text-embedding-3-small', dims: 1536 } },
        '/app',
        fail,
        () => undefined,
      )?.index,
    ).toEqual({
      embed: { kind: 'provider', provider: 'openai', model: 'text-embedding-3-small' },
      dims: 1536,
      fields: ['$'],
    });
  });

  it('refreshes on read by default', () => {
    expect(parseStoreSection({}, '/app', fail, () => undefined)).toEqual({
      ttl: { refreshOnRead: true },
    });
  });

  it.each([
    [{ index: { dims: 3 } }, /store.index.embed/],
    [{ index: { embed: 'openai:x', dims: 0 } }, /store.index.dims/],
    [{ index: { embed: 'openai', dims: 3 } }, /provider/],
    [{ index: { embed: 'openai:x', dims: 3, fields: [1] } }, /store.index.fields/],
    [{ ttl: { default_ttl: -1 } }, /store.ttl.default_ttl/],
    [{ ttl: { refresh_on_read: 'yes' } }, /refresh_on_read/],
    [{ ttl: { sweep_interval_minutes: 0 } }, /sweep_interval_minutes/],
  ])('refuses %j', (raw, problem) => {
    expect(() => parseStoreSection(raw, '/app', fail, () => undefined)).toThrow(problem);
  });
});
