import {
  ANY,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  jsonEvent,
  type AppendExpectedRevision,
  type EventData,
  type Position,
  type ReadPosition,
  type ReadRevision,
  type RecordedEvent as EsdbRecordedEvent,
  type WrongExpectedVersionError,
} from '@eventstore/db-client';
import { WrongExpectedPositionError } from '../event-store.errors.js';
import type {
  EventToAppend,
  ExpectedPosition,
  JsonObject,
  RecordedEvent,
} from '../event-store.port.js';
import type { LogPosition } from '../log-position.js';

export function toExpectedRevision(expected: ExpectedPosition): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return BigInt(expected);
  }
}

export function toEventData(event: EventToAppend): EventData {
  return jsonEvent({
    id: event.eventId,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  });
}

export function toWrongExpectedPositionError(
  streamId: string,
  expected: ExpectedPosition,
  error: WrongExpectedVersionError,
): WrongExpectedPositionError {
  const actual = error.actualVersion === NO_STREAM ? -1 : Number(error.actualVersion);
  return new WrongExpectedPositionError(streamId, expected, actual);
}

/** Subscriptions start after the given revision, so a negative position means the start. */
export function toSubscriptionRevision(afterPosition: number | undefined): ReadRevision {
  return afterPosition === undefined || afterPosition < 0 ? START : BigInt(afterPosition);
}

/** `LOG_START` and other negative positions mean the start: the server's positions are unsigned. */
export function toReadPosition(position: LogPosition | undefined): ReadPosition {
  if (position === undefined || position.commit < 0n || position.prepare < 0n) return START;
  return { commit: position.commit, prepare: position.prepare };
}

export function toLogPosition(position: Position): LogPosition {
  return { commit: position.commit, prepare: position.prepare };
}

export function isSystemEvent(event: Pick<EsdbRecordedEvent, 'type' | 'streamId'>): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** The event unless it is absent or a system event, which includes unresolved links (`$>`). */
export function toUserEvent(resolved: { event?: EsdbRecordedEvent }): RecordedEvent | undefined {
  const { event } = resolved;
  if (event === undefined || isSystemEvent(event)) return undefined;
  return toRecordedEvent(event);
}

export function toRecordedEvent(event: EsdbRecordedEvent): RecordedEvent {
  return {
    eventId: event.id,
    type: event.type,
    streamId: event.streamId,
    streamPosition: Number(event.revision),
    logPosition: toLogPosition(requirePosition(event)),
    data: toJsonObject(event.data, `data of event ${event.id}`),
    metadata:
      event.metadata === undefined
        ? {}
        : toJsonObject(event.metadata, `metadata of event ${event.id}`),
    recordedAt: event.created,
  };
}

function requirePosition(event: EsdbRecordedEvent): Position {
  if (event.position === undefined) {
    throw new Error(`Event ${event.id} has no log position: the server must be 22.6 or later`);
  }
  return event.position;
}

function toJsonObject(value: unknown, what: string): JsonObject {
  if (!isJsonObject(value)) throw new Error(`The ${what} is not a JSON object`);
  return value;
}

function isJsonObject(value: unknown): value is JsonObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array)
  );
}
