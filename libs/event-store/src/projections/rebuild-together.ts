import type { ObjectLiteral } from 'typeorm';
import type { DataOf, EventStore } from '../event-store.port.js';
import { LOG_START } from '../log-position.js';
import type { ProjectionRunner } from './projection-runner.js';

const BATCH_SIZE = 500;

/**
 * Empties the runners' read models and projects the whole log into all of them from one read of
 * it (each event read, and opened where the store decrypts, once, not once per read model).
 * A runner whose read model another writer moved meanwhile goes on alone from where that left it.
 * Returns the number of events each runner read.
 */
export async function rebuildTogether(
  store: EventStore,
  runners: readonly ProjectionRunner<ObjectLiteral>[],
): Promise<number> {
  for (const runner of runners) await runner.empty();
  const withDataOf = dataOfAll(runners);
  let together = [...runners];
  let after = LOG_START;
  let read = 0;
  for (;;) {
    const batch = await store.readLog({ after, maxCount: BATCH_SIZE, withDataOf });
    const last = batch.at(-1);
    if (!last) break;
    const kept = await Promise.all(together.map((runner) => runner.project(batch)));
    const left = together.filter((_, index) => !kept[index]);
    together = together.filter((_, index) => kept[index]);
    await Promise.all(left.map((runner) => runner.catchUp()));
    read += batch.length;
    after = last.logPosition;
    if (batch.length < BATCH_SIZE || together.length === 0) break;
  }
  return read;
}

/** The types whose data one of the runners folds; undefined (every type's) when one folds all. */
function dataOfAll(runners: readonly ProjectionRunner<ObjectLiteral>[]): DataOf {
  const types = new Set<string>();
  for (const runner of runners) {
    const own = runner.projection.eventTypes;
    if (!own) return undefined;
    for (const type of own) types.add(type);
  }
  return types;
}
