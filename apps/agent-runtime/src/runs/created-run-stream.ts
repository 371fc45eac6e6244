import type { EventStore } from '#libs/event-store';
import { readRunStream, type StreamRecord } from '../run-records/run-stream-reader.js';
import { firstChunkOf } from '../run-records/run.decider.js';

/**
 * The stream of a run whose creation is recorded already: its first chunk, the same whoever
 * recorded it, goes out at once without a read; the rest is read and followed as it comes.
 */
export async function* readCreatedRunStream(
  store: EventStore,
  runId: string,
  signal: AbortSignal,
): AsyncGenerator<StreamRecord> {
  const first = firstChunkOf(runId);
  yield { id: first.seq, event: first.event, data: first.data };
  yield* readRunStream(store, runId, { afterId: first.seq }, signal);
}
