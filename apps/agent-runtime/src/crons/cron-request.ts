import type { JsonObject } from '#libs/event-store';
import { ValidationFailedError } from '#libs/http';
import { uuid5 } from '../common/uuid5.js';
import { CronSchedule, CronScheduleError } from './cron-schedule.js';
import type { CreateCronDto } from './create-cron/create-cron.dto.js';

/** The run of a cron's tick: `uuid5("<cron id>@<tick>")` in this namespace. */
const CRON_RUN_NAMESPACE = '3b0f7c52-8a41-5d7e-b6c9-1e2f4a5d6c70';
/** Fields of a cron's body that are the cron's own; the rest is the run each tick creates. */
const CRON_ONLY = [
  'schedule',
  'timezone',
  'end_time',
  'enabled',
  'on_run_completed',
  'assistant_id',
];
/** Fields of an update that change the run each tick creates. */
export const PAYLOAD_FIELDS = [
  'input',
  'config',
  'context',
  'webhook',
  'interrupt_before',
  'interrupt_after',
];

/** The schedule of a create or an update, or a 422 naming the field that is wrong. */
export function scheduleOf(schedule: string, timezone: string | null | undefined): CronSchedule {
  try {
    return CronSchedule.parse(schedule, timezone);
  } catch (error) {
    if (!(error instanceof CronScheduleError)) throw error;
    const field = error.message.startsWith('Unknown time zone') ? 'timezone' : 'schedule';
    throw new ValidationFailedError([
      { loc: ['body', field], msg: error.message, type: 'value_error' },
    ]);
  }
}

/** The fields of a cron's body that make each tick's run, as they were given. */
export function runPayloadOf(body: CreateCronDto): JsonObject {
  const payload: JsonObject = {};
  for (const [key, value] of Object.entries(body) as [string, JsonObject[string] | undefined][]) {
    if (!CRON_ONLY.includes(key) && value !== undefined) payload[key] = value;
  }
  return payload;
}

/** The run and (for a stateless cron) the thread of one tick: the same on every replica. */
export function tickIdentity(cronId: string, tick: string): { runId: string; threadId: string } {
  return {
    runId: uuid5(`${cronId}@${tick}`, CRON_RUN_NAMESPACE),
    threadId: uuid5(`${cronId}@${tick}#thread`, CRON_RUN_NAMESPACE),
  };
}
