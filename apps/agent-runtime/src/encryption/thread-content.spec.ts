import { describe, expect, it } from '@jest/globals';
import { isErasure, isSkeletonField, threadScope, threadStreamOf } from './thread-content.js';

describe("a thread's content and its skeleton", () => {
  it('finds the thread of its own stream and its checkpoints, and the run of a run stream', () => {
    expect(threadStreamOf('thread-t1')).toEqual({ kind: 'thread', threadId: 't1' });
    expect(threadStreamOf('checkpoints-t1')).toEqual({ kind: 'checkpoints', threadId: 't1' });
    expect(threadStreamOf('run-r1')).toEqual({ kind: 'run', runId: 'r1' });
    expect(threadStreamOf('assistant-a1')).toBeUndefined();
    expect(threadScope('t1')).toBe('thread:t1');
  });

  it('keeps ids, times, states and counts in clear, and everything else encrypted', () => {
    for (const [field, value] of [
      ['run_id', 'r1'],
      ['created_at', '2026-01-01T00:00:00Z'],
      ['parent_checkpoint_id', null],
      ['status', 'success'],
      ['seq', 3],
      ['event', 'values'],
      ['attempt', 1],
    ] as const) {
      expect(isSkeletonField(field, value)).toBe(true);
    }
    for (const [field, value] of [
      ['metadata', {}],
      ['kwargs', { input: 'x' }],
      ['data', 'a chunk'],
      ['values', null],
      ['error', { message: 'x' }],
      ['thread_id', { nested: 'an id field holding an object' }],
      ['as_node', 'agent'],
    ] as const) {
      expect(isSkeletonField(field, value)).toBe(false);
    }
  });

  it('leaves only the deletions of a thread in clear', () => {
    expect(isErasure('ThreadDeleted')).toBe(true);
    expect(isErasure('ThreadExpired')).toBe(true);
    expect(isErasure('RunDeleted')).toBe(false);
    expect(isErasure('ThreadCreated')).toBe(false);
  });
});
