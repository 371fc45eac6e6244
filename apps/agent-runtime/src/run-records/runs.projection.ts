import type { Projection, RecordedEvent } from '#libs/event-store';
import type { RunEvent } from './run.events.js';
import { RunEntity, type RunRow } from './run.entity.js';

type RunProjected = Exclude<RunEvent, { type: 'RunStepEmitted' }>;

const PROJECTED = new Set(['RunCreated', 'RunStarted', 'RunFinished', 'RunDeleted']);

export function evolveRunRow(
  row: RunRow | undefined,
  event: RunProjected,
  at: Date,
): RunRow | undefined {
  switch (event.type) {
    case 'RunCreated':
      return {
        run_id: event.data.run_id,
        thread_id: event.data.thread_id,
        assistant_id: event.data.assistant_id,
        created_at: new Date(event.data.created_at),
        updated_at: new Date(event.data.created_at),
        metadata: event.data.metadata,
        status: 'pending',
        kwargs: event.data.kwargs,
        multitask_strategy: event.data.multitask_strategy,
        temporary: event.data.kwargs.temporary,
      };
    case 'RunStarted':
      return row && { ...row, status: 'running', updated_at: new Date(event.data.started_at) };
    case 'RunFinished':
      return row && { ...row, status: event.data.status, updated_at: at };
    case 'RunDeleted':
      return undefined;
  }
}

export const runsProjection: Projection<RunRow> = {
  name: 'runs',
  entity: RunEntity,
  key: 'run_id',
  eventTypes: PROJECTED,
  makesRowAnew: new Set(['RunCreated']),
  keyOf: (event: RecordedEvent) =>
    PROJECTED.has(event.type) ? event.streamId.slice('run-'.length) : undefined,
  evolve: (row, event) =>
    evolveRunRow(row, { type: event.type, data: event.data } as RunProjected, event.recordedAt),
};
