import type { RunCreatedData, RunStatus } from '../run-records/run.events.js';
import type { RunRow } from '../run-records/run.entity.js';

export function runResource(row: RunRow) {
  return {
    run_id: row.run_id,
    thread_id: row.thread_id,
    assistant_id: row.assistant_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    metadata: row.metadata,
    status: row.status,
    kwargs: row.kwargs,
    multitask_strategy: row.multitask_strategy,
  };
}

export function createdRunResource(data: RunCreatedData, status: RunStatus = 'pending'): Run {
  return {
    run_id: data.run_id,
    thread_id: data.thread_id,
    assistant_id: data.assistant_id,
    created_at: data.created_at,
    updated_at: data.created_at,
    metadata: data.metadata,
    status,
    kwargs: data.kwargs,
    multitask_strategy: data.multitask_strategy,
  };
}

/** A run as the API shows it (the SDK's `Run`). */
export type Run = ReturnType<typeof runResource>;

/** Where a run is addressed: a stateless run at `/runs/{id}`, a thread's under its thread. */
export function runPath(run: RunCreatedData): string {
  return run.kwargs.temporary
    ? `/runs/${run.run_id}`
    : `/threads/${run.thread_id}/runs/${run.run_id}`;
}
