import { readLogLine } from '#libs/logging';
import type { LogRecord } from './revision-logs.js';

/** The level of a line that names none: build output and plain prints. */
export const LOG_LINE_LEVEL = 'INFO';

export interface LogPageQuery {
  readonly order?: 'asc' | 'desc';
  readonly limit?: number;
  readonly offset?: string;
  readonly level?: string;
  readonly query?: string;
  readonly start_time?: string;
  readonly end_time?: string;
}

export interface LogEntry {
  readonly id: string;
  readonly timestamp: string;
  readonly level: string;
  readonly message: string;
}

export interface LogPage {
  readonly logs: LogEntry[];
  /** How many matching entries come before the next page, for the next request's `offset`. */
  readonly next_offset: string;
}

export const DEFAULT_LOG_PAGE_LIMIT = 100;

function within(timestamp: string, query: LogPageQuery): boolean {
  const at = Date.parse(timestamp);
  if (query.start_time && at < Date.parse(query.start_time)) return false;
  if (query.end_time && at > Date.parse(query.end_time)) return false;
  return true;
}

/** One page of a revision's log lines, filtered and ordered the way the query asks. */
export function logPage(records: readonly LogRecord[], query: LogPageQuery): LogPage {
  const needle = query.query?.toLowerCase();
  const matching = records
    .map((record) => ({
      id: record.id,
      timestamp: record.timestamp,
      ...readLogLine(record.message, LOG_LINE_LEVEL),
    }))
    .filter((entry) => !query.level || entry.level === query.level.toUpperCase())
    .filter((entry) => !needle || entry.message.toLowerCase().includes(needle))
    .filter((entry) => within(entry.timestamp, query));
  const ordered = query.order === 'desc' ? matching.reverse() : matching;
  const offset = Number(query.offset ?? 0);
  const logs = ordered.slice(offset, offset + (query.limit ?? DEFAULT_LOG_PAGE_LIMIT));
  return { logs, next_offset: String(offset + logs.length) };
}
