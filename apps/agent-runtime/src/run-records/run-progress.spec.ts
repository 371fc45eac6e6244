import { describe, expect, it } from '@jest/globals';
import { progressOf } from './run-progress.js';

describe('progressOf', () => {
  it('carries on after the last event and the last chunk, with the request that created the run', () => {
    const progress = progressOf([
      {
        type: 'RunCreated',
        data: { run_id: 'r1', thread_id: 't1' },
        metadata: { request_id: 'req-7' },
        streamPosition: 0,
      },
      { type: 'RunStepEmitted', data: { seq: 0, event: 'metadata', data: {} }, streamPosition: 1 },
      { type: 'RunStarted', data: { run_id: 'r1', attempt: 1 }, streamPosition: 2 },
      { type: 'RunStepEmitted', data: { seq: 1, event: 'values', data: {} }, streamPosition: 3 },
      { type: 'RunStepEmitted', data: { seq: 2, event: 'values', data: {} }, streamPosition: 4 },
    ]);

    expect(progress).toMatchObject({ position: 4, nextSeq: 3, requestId: 'req-7' });
    expect(progress.lifecycle).toMatchObject({ phase: 'started', attempt: 1 });
  });

  it('starts an empty stream at its beginning', () => {
    expect(progressOf([])).toMatchObject({ position: -1, nextSeq: 0, requestId: undefined });
  });
});
