import { v7 } from 'uuid';

/**
 * A time-ordered uuid (RFC 9562 version 7), increasing within this process, also within one
 * millisecond and when the clock steps back (uuid's monotonic counter). Ids that grow with time
 * land at the right edge of a btree index: random ids scatter inserts over the whole index and,
 * after every checkpoint, make PostgreSQL log a full page for each page they touch.
 */
export function uuidv7(): string {
  return v7();
}
