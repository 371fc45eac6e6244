import type { RecordedEvent } from '../event-store.port.js';
import { formatLogPosition } from '../log-position.js';

/** The event a projection could not apply, as an operator finds it in the log. */
export interface FailedEvent {
  readonly stream: string;
  readonly stream_position: number;
  readonly type: string;
  /** The event's position in the global log (`commit/prepare`). */
  readonly log_position: string;
}

/**
 * A read model that does not move: the same event (or the same read of the log) failed on
 * consecutive attempts. Callers that need the read model fail at once with `ProjectionStuckError`
 * until an attempt succeeds.
 */
export interface ProjectionFailure {
  readonly projection: string;
  /** The event it cannot apply; absent when it failed before it could read one (the log). */
  readonly event: FailedEvent | undefined;
  /** Where the read model stands: everything up to here is applied. */
  readonly after: string;
  readonly error: string;
  /** When the first failed attempt of this failure was made. */
  readonly since: string;
  /** Failed attempts so far; the runner keeps retrying, with a growing pause (5 s at most). */
  readonly attempts: number;
}

export function failedEventOf(event: RecordedEvent): FailedEvent {
  return {
    stream: event.streamId,
    stream_position: event.streamPosition,
    type: event.type,
    log_position: formatLogPosition(event.logPosition),
  };
}

/** One sentence: which read model, which event, why. */
export function describeProjectionFailure(failure: ProjectionFailure): string {
  const where = failure.event
    ? `event ${failure.event.type} (stream ${failure.event.stream}, position ` +
      `${failure.event.stream_position}, log position ${failure.event.log_position})`
    : `the log after position ${failure.after}`;
  return `The ${failure.projection} read model cannot apply ${where}: ${failure.error}`;
}

/** What a caller gets at once, instead of waiting, from a read model that is stuck. */
export class ProjectionStuckError extends Error {
  readonly code = 'projection_stuck';

  constructor(readonly failure: ProjectionFailure) {
    super(
      `${describeProjectionFailure(failure)}. It is retried; until it is applied, what reads ` +
        `this read model answers 503 (see GET /ok)`,
    );
  }
}
