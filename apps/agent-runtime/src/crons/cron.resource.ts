import type { CronRow } from './cron.entity.js';

const iso = (value: Date | null): string | null => value?.toISOString() ?? null;

/** A cron as the SDK's `Cron` describes it. */
export interface Cron {
  readonly cron_id: string;
  readonly assistant_id: string;
  readonly thread_id: string | null;
  readonly on_run_completed: CronRow['on_run_completed'];
  readonly end_time: string | null;
  readonly schedule: string;
  readonly timezone: CronRow['timezone'];
  readonly created_at: string;
  readonly updated_at: string;
  readonly payload: CronRow['payload'] & { assistant_id: string };
  readonly user_id: CronRow['user_id'];
  readonly next_run_date: string | null;
  readonly metadata: CronRow['metadata'];
  readonly enabled: boolean;
}

export function cronResource(row: CronRow): Cron {
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
