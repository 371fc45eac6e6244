import type { JsonObject, RecordedEvent } from '../event-store.port.js';

export interface EventRow {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_position: string;
  event_id: string;
  event_type: string;
  data: JsonObject;
  metadata: JsonObject;
  recorded_at: Date;
}

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    eventId: row.event_id,
    type: row.event_type,
    streamId: row.stream_id,
    streamPosition: Number(row.stream_position),
    logPosition: { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
  };
}
