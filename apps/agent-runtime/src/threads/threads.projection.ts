import type { EventStore, JsonObject, Projection, RecordedEvent } from '#libs/event-store';
import { ValuesChunkExpander } from '../run-records/values-chunk-expander.js';
import type { RunEvent } from '../run-records/run.events.js';
import type { ThreadEvent } from './thread.events.js';
import { ThreadEntity, type ThreadRow, type ThreadStatus } from './thread.entity.js';

type ThreadProjected = ThreadEvent | Extract<RunEvent, { type: 'RunCreated' | 'RunFinished' }>;

const THREAD_EVENTS = new Set([
  'ThreadCreated',
  'ThreadMetadataUpdated',
  'ThreadDeleted',
  'ThreadStateUpdated',
  'ThreadCopied',
  'ThreadTtlSet',
  'ThreadExpired',
]);
const RUN_EVENTS = new Set(['RunCreated', 'RunFinished']);

function threadIdOf(event: RecordedEvent): string | undefined {
  if (THREAD_EVENTS.has(event.type)) return event.streamId.slice('thread-'.length);
  if (RUN_EVENTS.has(event.type) && event.data.temporary !== true) {
    const threadId = event.data.thread_id;
    return typeof threadId === 'string' ? threadId : undefined;
  }
  return undefined;
}

/** Like the reference server: error wins, then an open interrupt, then runs still waiting. */
function statusAfterRun(
  finished: Extract<RunEvent, { type: 'RunFinished' }>['data'],
  inflight: string[],
): ThreadStatus {
  if (finished.status === 'error' || finished.status === 'timeout') return 'error';
  return stateStatus(finished.next, inflight);
}

function stateStatus(next: readonly string[], inflight: readonly string[]): ThreadStatus {
  if (next.length > 0) return 'interrupted';
  return inflight.length > 0 ? 'busy' : 'idle';
}

/** A run that never started leaves the thread as it was, but for being busy with it. */
function statusWithoutState(previous: ThreadStatus, inflight: string[]): ThreadStatus {
  if (inflight.length > 0) return 'busy';
  return previous === 'busy' ? 'idle' : previous;
}

type ThreadOwnEvent = Extract<ThreadProjected, ThreadEvent>;
type ThreadRunEvent = Exclude<ThreadProjected, ThreadEvent>;

/** A thread's row as it starts: made, or copied from another thread. */
function newThreadRow(
  event: Extract<ThreadEvent, { type: 'ThreadCreated' | 'ThreadCopied' }>,
): ThreadRow {
  const copied = event.type === 'ThreadCopied' ? event.data : undefined;
  return {
    thread_id: event.data.thread_id,
    created_at: new Date(event.data.created_at),
    updated_at: new Date(event.data.created_at),
    metadata: event.data.metadata,
    status: copied?.status ?? 'idle',
    config: {},
    values: copied?.values ?? null,
    interrupts: copied?.interrupts ?? {},
    inflight_runs: [],
    ttl_minutes: null,
  };
}

/** What the thread's own events change. */
function evolveByThreadEvent(
  row: ThreadRow | undefined,
  event: ThreadOwnEvent,
): ThreadRow | undefined {
  switch (event.type) {
    case 'ThreadCreated':
    case 'ThreadCopied':
      return newThreadRow(event);
    case 'ThreadDeleted':
    case 'ThreadExpired':
      return undefined;
    case 'ThreadTtlSet':
      return (
        row && {
          ...row,
          ttl_minutes: event.data.ttl_minutes,
          updated_at: new Date(event.data.set_at),
        }
      );
    case 'ThreadMetadataUpdated':
      return (
        row && {
          ...row,
          metadata: { ...row.metadata, ...event.data.metadata },
          updated_at: new Date(event.data.updated_at),
        }
      );
    case 'ThreadStateUpdated':
      return (
        row && {
          ...row,
          status: stateStatus(event.data.next, row.inflight_runs),
          values: event.data.values,
          interrupts: event.data.interrupts,
          updated_at: new Date(event.data.updated_at),
        }
      );
  }
}

/** What a run on the thread changes: busy while it runs, its outcome's state once it ends. */
function evolveByRunEvent(row: ThreadRow, event: ThreadRunEvent, at: Date): ThreadRow {
  if (event.type === 'RunCreated') {
    const { graph_id, assistant_id, kwargs } = event.data;
    const metadata: JsonObject = { ...row.metadata, graph_id, assistant_id };
    return {
      ...row,
      status: 'busy',
      metadata,
      config: { ...row.config, ...kwargs.config },
      inflight_runs: [...row.inflight_runs, event.data.run_id],
      updated_at: at,
    };
  }
  const inflight = row.inflight_runs.filter((id) => id !== event.data.run_id);
  const captured = event.data.state_captured;
  return {
    ...row,
    status: captured
      ? statusAfterRun(event.data, inflight)
      : statusWithoutState(row.status, inflight),
    values: captured ? event.data.values : row.values,
    interrupts: captured ? event.data.interrupts : row.interrupts,
    inflight_runs: inflight,
    updated_at: new Date(event.data.finished_at),
  };
}

const isRunEvent = (event: ThreadProjected): event is ThreadRunEvent =>
  event.type === 'RunCreated' || event.type === 'RunFinished';

export function evolveThreadRow(
  row: ThreadRow | undefined,
  event: ThreadProjected,
  at: Date,
): ThreadRow | undefined {
  if (!isRunEvent(event)) return evolveByThreadEvent(row, event);
  return row && evolveByRunEvent(row, event, at);
}

/** Runs' outcomes with their final values whole (the log may keep them as a delta). */
async function wholeOutcomes(
  events: readonly RecordedEvent[],
  store: EventStore,
): Promise<readonly RecordedEvent[]> {
  if (!events.some((event) => event.type === 'RunFinished' && event.data.values_extends)) {
    return events;
  }
  const expander = new ValuesChunkExpander(store);
  const whole: RecordedEvent[] = [];
  for (const event of events) {
    whole.push(event.type === 'RunFinished' ? await expander.expand(event) : event);
  }
  return whole;
}

export const threadsProjection: Projection<ThreadRow> = {
  name: 'threads',
  entity: ThreadEntity,
  key: 'thread_id',
  eventTypes: new Set([...THREAD_EVENTS, ...RUN_EVENTS]),
  makesRowAnew: new Set(['ThreadCreated', 'ThreadCopied']),
  keyOf: threadIdOf,
  prepare: wholeOutcomes,
  evolve: (row, event) =>
    evolveThreadRow(
      row,
      { type: event.type, data: event.data } as ThreadProjected,
      event.recordedAt,
    ),
};
