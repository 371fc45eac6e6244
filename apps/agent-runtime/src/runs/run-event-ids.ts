import type { EventToAppend } from '#libs/event-store';
import { uuid5 } from '../common/uuid5.js';

const BERTH_RUN_EVENTS = '1f0b6a52-6c4e-4d7e-9a35-5d0c8f7e2b11';

/**
 * The id of a run's lifecycle event, the same on every try: an append retried by another worker
 * or after a crash is then recognised by the store and stored once.
 */
export function runEventId(
  runId: string,
  what: 'created' | 'metadata-1' | 'cancelled-while-pending' | 'deleted' | `finished-${number}`,
): string {
  return uuid5(`${runId}:${what}`, BERTH_RUN_EVENTS);
}

/** Removes a run cancelled with `rollback` from its thread's runs. */
export function runDeletedEvent(runId: string, threadId: string, at: string): EventToAppend {
  return {
    eventId: runEventId(runId, 'deleted'),
    type: 'RunDeleted',
    data: { run_id: runId, thread_id: threadId, deleted_at: at },
  };
}
