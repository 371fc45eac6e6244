import type { EventStore, LogPosition, RecordedEvent } from '#libs/event-store';
import { runStream } from '../run-records/run.events.js';
import { beforeCommit, commitOfSeq } from '../protocol-events/protocol-seq.js';

const ENDED = new Set(['RunFinished', 'RunDeleted']);

interface RunSpan {
  readonly first: RecordedEvent;
  readonly last: RecordedEvent;
}

async function spanOf(store: EventStore, runId: string): Promise<RunSpan | undefined> {
  const stream = runStream(runId);
  const [[first], [last]] = await Promise.all([
    store.readStream(stream, { maxCount: 1 }),
    store.readStream(stream, { direction: 'backwards', maxCount: 1 }),
  ]);
  return first && last ? { first, last } : undefined;
}

/**
 * Where a thread's protocol stream starts reading. After `since`: from the start of the first run
 * still going at that point (its events are read again, to know what its messages and interrupts
 * were, and sent only past `since`), else from that commit. Without: from the start of the
 * thread's latest run (and of any earlier one still going): a client that opens its stream just
 * after starting a run, or a moment after it ended, sees all of it; one that reconnects without
 * saying where gets the run again, which its `event_id`s let it skip. Runs on a thread follow
 * each other, so the newest are looked at first. `head` is the log's head read before `runIds`
 * were: a run created after it is found in the log, one created before it is among `runIds`.
 */
export async function streamStart(
  store: EventStore,
  runIds: readonly string[],
  since: number | undefined,
  head: LogPosition,
): Promise<LogPosition> {
  const newestFirst = [...runIds].sort().reverse();
  const sinceCommit = since === undefined ? undefined : commitOfSeq(since);
  let start: bigint | undefined;
  for (const [index, runId] of newestFirst.entries()) {
    const span = await spanOf(store, runId);
    if (!span) continue;
    const wanted =
      sinceCommit === undefined
        ? index === 0 || !ENDED.has(span.last.type)
        : span.last.logPosition.commit >= sinceCommit;
    if (!wanted) break;
    start = span.first.logPosition.commit;
  }
  if (sinceCommit !== undefined) {
    return beforeCommit(start !== undefined && start < sinceCommit ? start : sinceCommit);
  }
  return start !== undefined ? beforeCommit(start) : head;
}
