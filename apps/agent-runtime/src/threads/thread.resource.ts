import type { ThreadRow } from './thread.entity.js';

/** A thread as the API shows it (the SDK's `Thread`). */
export interface Thread {
  readonly thread_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly metadata: ThreadRow['metadata'];
  readonly status: ThreadRow['status'];
  readonly config: ThreadRow['config'];
  readonly values: ThreadRow['values'];
  readonly interrupts: ThreadRow['interrupts'];
}

export function threadResource(row: ThreadRow): Thread {
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
