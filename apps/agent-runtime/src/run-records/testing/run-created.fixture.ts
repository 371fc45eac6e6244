import type { RunCreatedData } from '../run.events.js';

/** A run as `RunCreated` records it, for the specs of what folds it. */
export const runCreatedFixture = {
  run_id: 'r1',
  thread_id: 't1',
  assistant_id: 'a1',
  assistant_version: 1,
  graph_id: 'g',
  metadata: {},
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
  multitask_strategy: 'reject',
  command: null,
  context: {},
  stream_subgraphs: false,
  created_at: '2026-01-01T00:00:00.000Z',
  not_before: null,
  durability: null,
  timeout_seconds: null,
} satisfies RunCreatedData;
