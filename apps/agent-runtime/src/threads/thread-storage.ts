import { CHECKPOINT_SAVED, CHECKPOINT_WRITES_SAVED } from '../checkpoints/checkpoint-events.js';

/** Where a part of a checkpoint stream's bytes is counted. */
export type StorageSection = 'checkpoints' | 'channel_values' | 'pending_writes';

/**
 * One figure measured over a thread's checkpoint stream (a row of the PostgreSQL query, or a sum
 * over the events read back from EventStoreDB). `bytes` of `checkpoints` is that of every event
 * that is not a write, channel values included: they are taken out in `threadStorageOf`.
 */
export interface StorageTally {
  readonly section: StorageSection;
  /** The channel, for `channel_values`. */
  readonly channel?: string | null;
  readonly rows: number;
  readonly bytes: number;
}

export interface StorageFigures {
  readonly rows: number;
  readonly bytes: number;
}

/** `GET /threads/{thread_id}/storage`. */
export interface ThreadStorage {
  readonly thread_id: string;
  readonly total_bytes: number;
  readonly checkpoints: StorageFigures;
  readonly channel_values: StorageFigures & {
    readonly by_channel: Readonly<Record<string, StorageFigures>>;
  };
  readonly pending_writes: StorageFigures;
}

/**
 * The storage answer from the tallies: the channel values, held inside the checkpoints' events,
 * are counted once, under `channel_values`, so the three sections add up to the stream's bytes.
 */
export function threadStorageOf(threadId: string, tallies: readonly StorageTally[]): ThreadStorage {
  const sum = (section: StorageSection) =>
    tallies
      .filter((tally) => tally.section === section)
      .reduce(
        (total, tally) => ({ rows: total.rows + tally.rows, bytes: total.bytes + tally.bytes }),
        { rows: 0, bytes: 0 },
      );
  const channels = tallies
    .filter((tally) => tally.section === 'channel_values' && tally.channel != null)
    .sort((a, b) => String(a.channel).localeCompare(String(b.channel)));
  const byChannel: Record<string, StorageFigures> = {};
  for (const tally of channels) {
    const known = byChannel[String(tally.channel)] ?? { rows: 0, bytes: 0 };
    byChannel[String(tally.channel)] = {
      rows: known.rows + tally.rows,
      bytes: known.bytes + tally.bytes,
    };
  }
  const checkpointEvents = sum('checkpoints');
  const channelValues = sum('channel_values');
  const pendingWrites = sum('pending_writes');
  const checkpoints = {
    rows: checkpointEvents.rows,
    bytes: checkpointEvents.bytes - channelValues.bytes,
  };
  return {
    thread_id: threadId,
    total_bytes: checkpoints.bytes + channelValues.bytes + pendingWrites.bytes,
    checkpoints,
    channel_values: { ...channelValues, by_channel: byChannel },
    pending_writes: pendingWrites,
  };
}

/** What an event of a checkpoint stream, as its store gives it back, adds to the tallies. */
export interface MeasuredEvent {
  readonly type: string;
  readonly data: unknown;
}

/**
 * The tallies of a checkpoint stream read back whole, measuring JSON text as `measure` counts it
 * (the bytes a store that keeps the text holds). The same figures as the PostgreSQL query.
 */
export function tallyEvents(
  events: readonly MeasuredEvent[],
  measure: (value: unknown) => number,
): StorageTally[] {
  const tallies: StorageTally[] = [];
  for (const event of events) {
    const bytes = measure(event.data);
    if (event.type === CHECKPOINT_WRITES_SAVED) {
      const writes = field(event.data, 'writes');
      tallies.push({
        section: 'pending_writes',
        rows: Array.isArray(writes) ? writes.length : 0,
        bytes,
      });
      continue;
    }
    tallies.push({ section: 'checkpoints', rows: event.type === CHECKPOINT_SAVED ? 1 : 0, bytes });
    if (event.type !== CHECKPOINT_SAVED) continue;
    for (const [channel, value] of Object.entries(jsonChannelValues(event.data))) {
      tallies.push({ section: 'channel_values', channel, rows: 1, bytes: measure(value) });
    }
  }
  return tallies;
}

/** The channel values of a checkpoint kept as JSON; none for one kept as base64. */
function jsonChannelValues(data: unknown): Record<string, unknown> {
  const checkpoint = field(data, 'checkpoint');
  if (field(checkpoint, 'type') !== 'json') return {};
  const values = field(field(checkpoint, 'value'), 'channel_values');
  return isObject(values) ? values : {};
}

function field(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
