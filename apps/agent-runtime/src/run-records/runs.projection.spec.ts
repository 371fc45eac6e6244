import { describe, expect, it } from '@jest/globals';
import type { RunRow } from './run.entity.js';
import { evolveRunRow, runsProjection } from './runs.projection.js';
import { runCreatedFixture } from './testing/run-created.fixture.js';

const AT = new Date('2026-01-02T00:00:00Z');

const created = runCreatedFixture;

describe('runs projection', () => {
  it('makes a run row anew on RunCreated, whatever row it is given', () => {
    const stale = {
      ...evolveRunRow(undefined, { type: 'RunCreated', data: created }, AT),
      status: 'error',
      metadata: { stale: true },
    } as RunRow;

    expect(runsProjection.makesRowAnew).toEqual(new Set(['RunCreated']));
    expect(evolveRunRow(stale, { type: 'RunCreated', data: created }, AT)).toEqual(
      evolveRunRow(undefined, { type: 'RunCreated', data: created }, AT),
    );
  });
});
