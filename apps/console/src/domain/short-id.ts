/**
 * An id short enough for a list, long enough to tell ids apart. Berth's ids are UUIDv7, whose
 * first characters are a timestamp shared by ids made close together, so both ends are kept.
 */
export function shortId(id: string): string {
  return id.length <= 13 ? id : `${id.slice(0, 8)}…${id.slice(-4)}`;
}
