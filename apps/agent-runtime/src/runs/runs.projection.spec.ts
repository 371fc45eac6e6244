import { describe, expect, it } from '@jest/globals';
import type { RunCreatedData } from '../run-records/run.events.js';
import type { RunRow } from './run.entity.js';
import { evolveRunRow, runsProjection } from './runs.projection.js';

const AT = new Date('2026-01-02T00:00:00Z');

const created: RunCreatedData = {
  run_id: 'r1',
  thread_id: 't1',
  assistant_id: 'a1',
  assistant_version: 1,
  graph_id: 'g',
  metadata: { team: 'support' },
  kwargs: {
    input: null,
    config: {},
    webhook: null,
    temporary: false,
    stream_mode: ['values'],
    feedback_keys: null,
    interrupt_after: null,
    interrupt_before: null,
  },
  multitask_strategy: 'enqueue',
  command: null,
  context: {},
  stream_subgraphs: false,
  created_at: '2026-01-01T00:00:00.000Z',
  not_before: null,
  durability: null,
  timeout_seconds: null,
};

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
