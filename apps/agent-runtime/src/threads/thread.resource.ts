import type { ThreadRow } from './thread.entity.js';

export function threadResource(row: ThreadRow) {
  return {
    thread_id: row.thread_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    metadata: row.metadata,
    status: row.status,
    config: row.config,
    values: row.values ?? null,
    interrupts: row.interrupts,
  };
}

/** A thread as the API shows it (the SDK's `Thread`). */
export type Thread = ReturnType<typeof threadResource>;
