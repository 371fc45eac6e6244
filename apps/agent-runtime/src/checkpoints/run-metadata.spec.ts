import { describe, expect, it } from '@jest/globals';
import { runMetadataOf } from './event-checkpoint-storage.js';

describe('runMetadataOf', () => {
  it('keeps the run metadata and public configurable scalars, without private, checkpoint, tracing or task keys', () => {
    expect(
      runMetadataOf({
        metadata: {
          created_by: 'system',
          ls_integration: 'langgraph',
          langgraph_step: 2,
          tags: ['x'],
        },
        configurable: {
          run_id: 'r1',
          thread_id: 't1',
          graph_id: 'agent',
          assistant_id: 'a1',
          user_id: null,
          checkpoint_ns: '',
          checkpoint_id: 'c1',
          __pregel_send: () => undefined,
          model: { name: 'x' },
        },
      }),
    ).toEqual({
      created_by: 'system',
      run_id: 'r1',
      thread_id: 't1',
      graph_id: 'agent',
      assistant_id: 'a1',
      user_id: null,
    });
  });
});
