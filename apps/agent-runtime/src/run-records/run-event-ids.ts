import type { EventToAppend } from '#libs/event-store';
import { currentRequestId } from '#libs/logging';
import { uuid5 } from '../common/uuid5.js';
import type { RunLifecycleEvent } from './run.decider.js';

const BERTH_RUN_EVENTS = '1f0b6a52-6c4e-4d7e-9a35-5d0c8f7e2b11';

/**
 * The id of a run's lifecycle event, the same on every try: an append retried by another worker
 * or after a crash is then recognised by the store and stored once.
 */
export function runEventId(
  runId: string,
  what:
    | 'created'
    | 'metadata-1'
    | 'cancelled-while-pending'
    | 'deleted'
    | `started-${number}`
    | `finished-${number}`,
): string {
  return uuid5(`${runId}:${what}`, BERTH_RUN_EVENTS);
}

/** Where a lifecycle event names the request that caused it. */
export const REQUEST_ID_METADATA = 'request_id';

/**
 * The decided lifecycle events, each with its fixed id, and the id of the request being served
 * (a worker serves the one that created the run) in their metadata.
 */
export function withLifecycleIds(
  runId: string,
  events: readonly RunLifecycleEvent[],
): EventToAppend[] {
  const requestId = currentRequestId();
  return events.map((event) => ({
    eventId: runEventId(runId, lifecycleIdOf(event)),
    type: event.type,
    data: event.data,
    ...(requestId ? { metadata: { [REQUEST_ID_METADATA]: requestId } } : {}),
  }));
}

function lifecycleIdOf(event: RunLifecycleEvent): Parameters<typeof runEventId>[1] {
  switch (event.type) {
    case 'RunCreated':
      return 'created';
    case 'RunStepEmitted':
      return 'metadata-1';
    case 'RunStarted':
      return `started-${event.data.attempt}`;
    case 'RunFinished':
      return event.data.attempt === 0
        ? 'cancelled-while-pending'
        : `finished-${event.data.attempt}`;
    case 'RunDeleted':
      return 'deleted';
  }
}
