import type { EventStore, LogPosition, RecordedEvent } from '#libs/event-store';
import { RUN_STREAM_PREFIX } from '../run-records/run.events.js';
import { checkpointStreamOf } from '../checkpoints/checkpoint-events.js';
import { threadStream } from './thread.events.js';

/** One event of a thread in the log, and the run it belongs to (none for the thread's own). */
export interface ThreadLogEvent {
  readonly event: RecordedEvent;
  readonly runId: string | undefined;
}

export interface ThreadLogOptions {
  /** Where to start: after this position of the log. */
  readonly after: LogPosition;
  /** Whether the thread's checkpoint stream is followed too. */
  readonly checkpoints?: boolean;
  /** Called once every event the log held at the start has been given (`onCaughtUp`). */
  readonly onCaughtUp?: () => void;
}

/**
 * A thread's events as the log orders them, from a position on, until the signal aborts: its own
 * stream, the streams of its runs (those known at the start and each one created later) and, if
 * asked, its checkpoints.
 */
export async function* followThreadLog(
  store: EventStore,
  threadId: string,
  knownRuns: readonly string[],
  options: ThreadLogOptions,
  signal: AbortSignal,
): AsyncGenerator<ThreadLogEvent> {
  const runs = new Set(knownRuns);
  const ownStream = threadStream(threadId);
  const checkpointStream = options.checkpoints ? checkpointStreamOf(threadId) : undefined;
  // Judged on what the log stores (a run's thread id is in clear): the store opens only these.
  const isThreads = (event: RecordedEvent): boolean => {
    if (!event.streamId.startsWith(RUN_STREAM_PREFIX)) {
      return event.streamId === ownStream || event.streamId === checkpointStream;
    }
    const runId = event.streamId.slice(RUN_STREAM_PREFIX.length);
    if (event.type === 'RunCreated' && event.data.thread_id === threadId) runs.add(runId);
    return runs.has(runId);
  };
  const subscription = store.subscribeToLog({
    after: options.after,
    keeps: isThreads,
    ...(options.onCaughtUp ? { onCaughtUp: options.onCaughtUp } : {}),
  });
  const stop = (): void => void subscription.close();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const event of subscription) {
      if (!isThreads(event)) continue;
      const isRun = event.streamId.startsWith(RUN_STREAM_PREFIX);
      yield { event, runId: isRun ? event.streamId.slice(RUN_STREAM_PREFIX.length) : undefined };
    }
  } finally {
    signal.removeEventListener('abort', stop);
    await subscription.close();
  }
}
