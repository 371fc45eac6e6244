import type { EventStore, JsonValue, RecordedEvent } from '#libs/event-store';
import { FIRST_CHUNK_POSITION, runStream } from './run.events.js';
import { ValuesChunkExpander } from './values-chunk-expander.js';

export interface StreamRecord {
  /** The chunk's number in the run, from 0: the SSE `id`. */
  readonly id: number;
  readonly event: string;
  readonly data: JsonValue;
}

export type StreamStart =
  /** Everything after the chunk with this id; -1 replays the run from its start. */
  | { readonly afterId: number }
  /** Only what the run emits from now on. */
  | 'now';

/** The events after which a run's stream has nothing more to say. */
const FINAL_EVENTS = new Set(['RunFinished', 'RunDeleted']);

/**
 * A run's stream chunks, read from its stream in the log and then followed live until the run
 * finishes. Chunk `seq` n is never before stream position n (lifecycle events only push chunks
 * further back), so resuming after chunk n reads from position n + 1 and skips the few chunks
 * with a lower number that sit past it. Works on any replica, during the run or after it ended.
 */
export async function* readRunStream(
  store: EventStore,
  runId: string,
  start: StreamStart,
  signal: AbortSignal,
): AsyncGenerator<StreamRecord> {
  const stream = runStream(runId);
  let afterId = start === 'now' ? Number.POSITIVE_INFINITY : start.afterId;
  let afterPosition = start === 'now' ? undefined : Math.max(-1, afterId);
  // A run that is over holds its outcome after its first chunk: a reader starting no later than
  // that chunk's position cannot be past its end, and need not look.
  if (start === 'now' || afterId > FIRST_CHUNK_POSITION) {
    const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    const finished = last !== undefined && FINAL_EVENTS.has(last.type);
    if (start === 'now') {
      if (!last || finished) return;
      afterPosition = last.streamPosition;
      afterId = -1;
    } else if (finished && afterId >= last.streamPosition) {
      // Resumed past the end of a run that is over: nothing more will come.
      return;
    } else if (!finished) {
      // An id past the end of a run still going (a client's, or one from before a retry): follow
      // the stream from its end, not from that far position, or its `RunFinished` would be missed
      // and the stream never end. Chunks numbered up to the id are skipped all the same.
      afterPosition = Math.min(afterId, last?.streamPosition ?? -1);
    }
  }
  const subscription = store.subscribeToStream(stream, { afterPosition });
  const chunks = new ValuesChunkExpander(store);
  const stop = (): void => void subscription.close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const event of subscription) {
      if (FINAL_EVENTS.has(event.type)) return;
      const record = toRecord(event);
      if (record && record.id > afterId)
        yield { ...record, data: await expandedData(chunks, event) };
    }
  } finally {
    signal.removeEventListener('abort', stop);
    await subscription.close();
  }
}

/** A chunk's data as it was emitted (a `values` chunk may be stored as a delta). */
async function expandedData(chunks: ValuesChunkExpander, event: RecordedEvent): Promise<JsonValue> {
  return (await chunks.expand(event)).data.data ?? null;
}

/** The stream chunk an event of a run's stream carries, if it carries one. */
export function toRecord(event: RecordedEvent): StreamRecord | undefined {
  if (event.type !== 'RunStepEmitted') return undefined;
  const { seq, event: name, data } = event.data;
  if (typeof seq !== 'number' || typeof name !== 'string') return undefined;
  return { id: seq, event: name, data: data ?? null };
}
