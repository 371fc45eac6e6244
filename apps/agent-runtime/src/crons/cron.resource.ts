import type { CronRow } from './cron.entity.js';

const iso = (value: Date | null): string | null => value?.toISOString() ?? null;

export function cronResource(row: CronRow) {
  return {
    cron_id: row.cron_id,
    assistant_id: row.assistant_id,
    thread_id: row.thread_id,
    on_run_completed: row.on_run_completed,
    end_time: iso(row.end_time),
    schedule: row.schedule,
    timezone: row.timezone,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    payload: { ...row.payload, assistant_id: row.assistant_id },
    user_id: row.user_id,
    next_run_date: iso(row.next_run_date),
    metadata: row.metadata,
    enabled: row.enabled,
  };
}

/** A cron as the SDK's `Cron` describes it. */
export type Cron = ReturnType<typeof cronResource>;
