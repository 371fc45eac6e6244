import { describe, expect, it } from '@jest/globals';
import { admitRun } from './run-admission.js';

describe('admitRun', () => {
  it('admits any run on an idle thread', () => {
    for (const strategy of ['reject', 'enqueue', 'interrupt', 'rollback'] as const) {
      expect(admitRun(strategy, [])).toEqual({ kind: 'admit', cancel: [], action: null });
    }
  });

  it('rejects a run on a busy thread by default', () => {
    expect(admitRun('reject', ['r1'])).toEqual({ kind: 'reject', inflight: ['r1'] });
  });

  it('queues behind the runs in flight with enqueue', () => {
    expect(admitRun('enqueue', ['r1', 'r2'])).toEqual({ kind: 'admit', cancel: [], action: null });
  });

  it('cancels the runs in flight with interrupt and rollback', () => {
    expect(admitRun('interrupt', ['r1'])).toEqual({
      kind: 'admit',
      cancel: ['r1'],
      action: 'interrupt',
    });
    expect(admitRun('rollback', ['r1'])).toEqual({
      kind: 'admit',
      cancel: ['r1'],
      action: 'rollback',
    });
  });
});
