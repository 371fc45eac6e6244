import type pg from 'pg';
import type { JsonObject } from '../event-store.port.js';

/** One event of an exported audit trail: the event, and where the chain sealed it. */
export interface AuditRecord {
  /** Its chain position; null when it was committed after the last seal. */
  readonly position: number | null;
  /** Its link's hash, which a verified head covers. */
  readonly hash: string | null;
  readonly event_id: string;
  readonly stream_id: string;
  readonly stream_position: number;
  readonly type: string;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
  readonly recorded_at: string;
}

export interface ExportPeriod {
  /** Inclusive. */
  readonly since?: Date;
  /** Exclusive. */
  readonly until?: Date;
}

interface ExportRow {
  position: string | null;
  hash: string | null;
  event_id: string;
  stream_id: string;
  stream_position: string;
  event_type: string;
  data: JsonObject;
  metadata: JsonObject;
  recorded_at: Date;
}

/** A stream's events recorded in the period, in stream order, with their chain positions. */
export async function exportStream(
  pool: pg.Pool,
  streamId: string,
  period: ExportPeriod,
): Promise<AuditRecord[]> {
  const { rows } = await pool.query<ExportRow>(
    `select c.position, c.hash, e.event_id, e.stream_id, e.stream_position, e.event_type,
            e.data, e.metadata, e.recorded_at
       from es_events e left join es_chain c on c.event_id = e.event_id
      where e.stream_id = $1
        and ($2::timestamptz is null or e.recorded_at >= $2)
        and ($3::timestamptz is null or e.recorded_at < $3)
      order by e.stream_position`,
    [streamId, period.since ?? null, period.until ?? null],
  );
  return rows.map((row) => ({
    position: row.position === null ? null : Number(row.position),
    hash: row.hash,
    event_id: row.event_id,
    stream_id: row.stream_id,
    stream_position: Number(row.stream_position),
    type: row.event_type,
    data: row.data,
    metadata: row.metadata,
    recorded_at: row.recorded_at.toISOString(),
  }));
}
