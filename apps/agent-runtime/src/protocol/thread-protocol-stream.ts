import type { EventStore, LogPosition } from '#libs/event-store';
import { followThreadLog } from '../threads/thread-log.js';
import { checkpointEnvelopeOf } from '../protocol-events/checkpoint-envelope.js';
import type { ProtocolEvent, ProtocolEventBody } from '../protocol-events/protocol-event.js';
import { SeqClock } from '../protocol-events/protocol-seq.js';
import { RunTranslator } from '../protocol-events/run-translator.js';
import { ValuesChunkExpander } from '../run-records/values-chunk-expander.js';

export interface ThreadProtocolStreamOptions {
  /** Where to read from: the start of a commit, so that every event of it is numbered alike. */
  readonly after: LogPosition;
  /** Events up to this `seq` were delivered before: read (to know the runs' state), not sent. */
  readonly since?: number;
  /** Called once the events the log held when the stream opened are all given: its replay. */
  readonly onCaughtUp?: () => void;
}

/**
 * A thread's protocol events (thread streaming v2), from the log, followed live until the signal
 * aborts. Every run of the thread shows, whoever started it and however; each event's `seq` and
 * `event_id` come from its place in the log.
 */
export async function* readThreadProtocolEvents(
  store: EventStore,
  threadId: string,
  knownRuns: readonly string[],
  options: ThreadProtocolStreamOptions,
  signal: AbortSignal,
): AsyncGenerator<ProtocolEvent> {
  const clock = new SeqClock();
  const runs = new Map<string, RunTranslator>();
  const chunks = new ValuesChunkExpander(store);
  const since = options.since ?? -1;
  const log = followThreadLog(
    store,
    threadId,
    knownRuns,
    { after: options.after, checkpoints: true, onCaughtUp: options.onCaughtUp },
    signal,
  );
  for await (const { event, runId } of log) {
    const timestamp = event.recordedAt.getTime();
    let bodies: Omit<ProtocolEventBody, 'timestamp'>[];
    if (runId === undefined) {
      const envelope = checkpointEnvelopeOf(event);
      bodies = envelope ? [{ method: 'checkpoints', ...envelope }] : [];
    } else {
      let translator = runs.get(runId);
      if (!translator) {
        translator = new RunTranslator(runId);
        runs.set(runId, translator);
      }
      bodies = translator.translate(await chunks.expand(event));
      if (event.type === 'RunFinished' || event.type === 'RunDeleted') runs.delete(runId);
    }
    for (const body of bodies) {
      const seq = clock.next(event.logPosition);
      if (seq <= since) continue;
      yield {
        type: 'event',
        event_id: String(seq),
        seq,
        method: body.method,
        params: {
          namespace: body.namespace,
          timestamp,
          ...(body.node !== undefined ? { node: body.node } : {}),
          data: body.data,
        },
      };
    }
  }
}
