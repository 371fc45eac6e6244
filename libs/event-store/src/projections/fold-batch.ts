import type { ObjectLiteral } from 'typeorm';
import type { RecordedEvent } from '../event-store.port.js';
import type { Projection } from './projection.js';

export interface FoldedBatch<Row> {
  readonly upserts: Row[];
  readonly deletes: string[];
}

/** The key of the row an event touches, for an event the projection is shown at all. */
export function rowKeyOf<Row extends ObjectLiteral>(
  projection: Projection<Row>,
  event: RecordedEvent,
): string | undefined {
  if (projection.eventTypes && !projection.eventTypes.has(event.type)) return undefined;
  return projection.keyOf(event);
}

/**
 * The keys of the rows a batch touches that must be read before it is folded: all but those whose
 * first event in the batch makes the row anew.
 */
export function rowsToRead<Row extends ObjectLiteral>(
  projection: Projection<Row>,
  batch: readonly RecordedEvent[],
): string[] {
  const firstOf = new Map<string, RecordedEvent>();
  for (const event of batch) {
    const key = rowKeyOf(projection, event);
    if (key !== undefined && !firstOf.has(key)) firstOf.set(key, event);
  }
  const anew = projection.makesRowAnew;
  return [...firstOf].filter(([, first]) => !anew?.has(first.type)).map(([key]) => key);
}

/** Folds a batch of events over the rows they touch: pure, so the runner only does I/O. */
export function foldBatch<Row extends ObjectLiteral>(
  projection: Projection<Row>,
  existing: readonly Row[],
  batch: readonly RecordedEvent[],
): FoldedBatch<Row> {
  const rows = new Map<string, Row | undefined>(
    existing.map((row) => [String(row[projection.key]), row]),
  );
  const touched = new Set<string>();
  for (const event of batch) {
    const key = rowKeyOf(projection, event);
    if (key === undefined) continue;
    rows.set(key, projection.evolve(rows.get(key), event));
    touched.add(key);
  }
  const upserts: Row[] = [];
  const deletes: string[] = [];
  for (const key of touched) {
    const row = rows.get(key);
    if (row) upserts.push(row);
    else deletes.push(key);
  }
  return { upserts, deletes };
}
