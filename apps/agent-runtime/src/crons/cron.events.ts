import type { JsonObject } from '#libs/domain';

/** What a cron may change after it is made. */
export type CronSettings = {
  schedule: string;
  /** IANA time zone of the schedule; null: UTC. */
  timezone: string | null;
  /** No tick after this instant fires; null: no end. */
  end_time: string | null;
  enabled: boolean;
  /** Stateless crons: what becomes of each tick's thread when its run ends; null on a thread. */
  on_run_completed: 'delete' | 'keep' | null;
  /** The run each tick creates, as `POST /runs` takes it (without `assistant_id`). */
  payload: JsonObject;
  metadata: JsonObject;
};

export type CronCreatedData = CronSettings & {
  cron_id: string;
  assistant_id: string;
  /** The thread each tick runs on; null: a new thread per tick. */
  thread_id: string | null;
  user_id: string | null;
  created_at: string;
  next_run_date: string | null;
};

export type CronEvent =
  | { readonly type: 'CronCreated'; readonly data: CronCreatedData }
  | {
      readonly type: 'CronUpdated';
      /** The settings the update gave; `payload` and `metadata` are merged into the cron's. */
      readonly data: {
        changes: Partial<CronSettings>;
        updated_at: string;
        next_run_date: string | null;
      };
    }
  | { readonly type: 'CronDeleted'; readonly data: { cron_id: string; deleted_at: string } }
  | {
      readonly type: 'CronFired';
      /**
       * The tick (the scheduled instant) and the run it created. `previous_tick` is the tick fired
       * before: ticks between the two were missed while nothing ran, and made no run of their own.
       */
      readonly data: {
        tick: string;
        previous_tick: string | null;
        run_id: string;
        thread_id: string | null;
        fired_at: string;
        next_run_date: string | null;
      };
    };

export const CRON_EVENT_TYPES: ReadonlySet<string> = new Set([
  'CronCreated',
  'CronUpdated',
  'CronDeleted',
  'CronFired',
]);

export const cronStream = (cronId: string): string => `cron-${cronId}`;
