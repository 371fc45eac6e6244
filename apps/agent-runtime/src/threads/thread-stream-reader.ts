import { ValuesChunkExpander } from '../run-records/values-chunk-expander.js';
import {
  formatLogPosition,
  LOG_START,
  parseLogPosition,
  type EventStore,
  type JsonValue,
  type LogPosition,
  type RecordedEvent,
} from '#libs/event-store';
import { badRequest } from '#libs/domain';
import { toRecord } from '../run-records/run-stream-reader.js';
import { followThreadLog } from './thread-log.js';

/** What a thread's stream can carry (`stream_mode`): its runs' own events, their start and end, its state changes. */
export const THREAD_STREAM_MODES = ['run_modes', 'lifecycle', 'state_update'] as const;
export type ThreadStreamMode = (typeof THREAD_STREAM_MODES)[number];

/** One event of a thread's stream; its id is the position of the event in the log. */
export interface ThreadStreamRecord {
  readonly id: string;
  readonly event: string;
  readonly data: JsonValue;
}

/**
 * Last-Event-ID of a thread stream: an id it sent (`<commit>/<prepare>`), `-` for the thread's
 * whole history, or none (from now).
 */
export function parseThreadEventId(header: string | undefined): LogPosition | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (text === '-') return LOG_START;
  try {
    // `<position>.<n>`: the n-th event made of one log event, the last of which it always is.
    return parseLogPosition(text.replace(/\.\d+$/, ''));
  } catch {
    throw badRequest(
      `Last-Event-ID must be an id this thread stream sent, or "-" for its start, got "${text.slice(0, 40)}"`,
    );
  }
}

/** The thread-stream events one log event gives, for the modes asked. */
function eventsOf(
  event: RecordedEvent,
  runId: string | undefined,
  modes: ReadonlySet<ThreadStreamMode>,
): { event: string; data: JsonValue }[] {
  const data = event.data;
  if (runId === undefined) {
    if (event.type !== 'ThreadStateUpdated' || !modes.has('state_update')) return [];
    return [
      { event: 'state_update', data: { values: data.values ?? null, next: data.next ?? [] } },
    ];
  }
  switch (event.type) {
    case 'RunStarted':
      return modes.has('lifecycle') ? [{ event: 'run_start', data: { run_id: runId } }] : [];
    case 'RunStepEmitted': {
      const record = modes.has('run_modes') ? toRecord(event) : undefined;
      return record ? [{ event: record.event, data: record.data }] : [];
    }
    case 'RunFinished': {
      const done = { event: 'run_done', data: { run_id: runId, status: data.status ?? null } };
      const out: { event: string; data: JsonValue }[] =
        modes.has('run_modes') || modes.has('lifecycle') ? [done] : [];
      if (modes.has('state_update') && data.state_captured === true) {
        out.push({
          event: 'state_update',
          data: { values: data.values ?? null, next: data.next ?? [] },
        });
      }
      return out;
    }
    default:
      return [];
  }
}

/**
 * The events of a thread as they are written, from now (or after the given event): the runs it
 * had when it started and each run created on it afterwards, their start and end, and changes
 * to its state. It follows the log until the client leaves.
 */
export async function* readThreadStream(
  store: EventStore,
  threadId: string,
  knownRuns: readonly string[],
  options: { after: LogPosition | undefined; modes: readonly ThreadStreamMode[] },
  signal: AbortSignal,
): AsyncGenerator<ThreadStreamRecord> {
  const modes = new Set<ThreadStreamMode>(options.modes.length > 0 ? options.modes : ['run_modes']);
  const after = options.after ?? (await store.headPosition());
  const chunks = new ValuesChunkExpander(store);
  for await (const { event, runId } of followThreadLog(
    store,
    threadId,
    knownRuns,
    { after },
    signal,
  )) {
    const id = formatLogPosition(event.logPosition);
    const produced = eventsOf(await chunks.expand(event), runId, modes);
    // Two events from one log event share its position: the second gets a suffix.
    for (const [index, one] of produced.entries()) {
      yield { id: index === 0 ? id : `${id}.${index}`, ...one };
    }
  }
}
