import type { ExpectedPosition } from './event-store.port.js';

export class WrongExpectedPositionError extends Error {
  readonly code = 'wrong_expected_position';

  constructor(
    readonly streamId: string,
    readonly expected: ExpectedPosition,
    /** -1 when the stream has no events. */
    readonly actual: number,
  ) {
    super(`Stream ${streamId} is at position ${actual}, expected ${String(expected)}`);
  }
}

/** An event id is already stored, but not as part of the same append being retried. */
export class DuplicateEventIdError extends Error {
  readonly code = 'duplicate_event_id';

  constructor(
    readonly streamId: string,
    readonly eventIds: readonly string[],
  ) {
    super(
      `Events ${eventIds.join(', ')} are already stored and do not match this append to ${streamId}`,
    );
  }
}
