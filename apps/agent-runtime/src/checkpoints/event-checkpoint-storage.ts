import type { RunnableConfig } from '@langchain/core/runnables';
import type {
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointPendingWrite,
  CheckpointTuple,
  DeltaChannelHistory,
  PendingWrite,
  ReadonlyCheckpoint,
} from '@langchain/langgraph-checkpoint';
import { CheckpointHolds, type CheckpointHold } from './checkpoint-holds.js';
import { StreamAppender } from './stream-appender.js';
import { TrailingWrites } from './trailing-writes.js';
import { CheckpointDeltaWriter } from './checkpoint-delta-writer.js';
import { uuidv7, type EventStore, type EventToAppend } from '#libs/event-store';
import {
  CHECKPOINT_SAVED,
  CHECKPOINT_WRITES_SAVED,
  checkpointStreamOf,
  threadIdOfCheckpointStream,
  type CheckpointEvent,
  type CheckpointSavedData,
  type CheckpointWritesSavedData,
} from './checkpoint-events.js';
import { decodeValue, encodeValue, type CheckpointSerde } from './stored-value.js';
import {
  ThreadCheckpointCache,
  type ThreadCheckpointCacheOptions,
} from './thread-checkpoint-cache.js';
import type { CheckpointRecord, ThreadCheckpoints } from './thread-checkpoints.js';

type ChannelVersion = number | string;

/** `WRITES_IDX_MAP` of @langchain/langgraph-checkpoint 1.x, used when the base gives none. */
export const DEFAULT_WRITES_IDX_MAP: Readonly<Record<string, number>> = Object.freeze({
  __error__: -1,
  __scheduled__: -2,
  __interrupt__: -3,
  __resume__: -4,
});

/** LangGraph's `TASKS` channel (pending `Send`s). */
export const DEFAULT_TASKS_CHANNEL = '__pregel_tasks';

/** What the storage needs from the saver class wrapping it (and its copy of the library). */
export interface CheckpointSaverHooks {
  /** The saver's current serializer (`BaseCheckpointSaver.serde`). */
  readonly serde: () => CheckpointSerde;
  readonly writesIdxMap: Readonly<Record<string, number>>;
  readonly tasksChannel: string;
  readonly copyCheckpoint: (checkpoint: ReadonlyCheckpoint) => Checkpoint;
  /** The saver's `getNextVersion(undefined)`: the first version of a channel. */
  readonly firstChannelVersion: () => ChannelVersion;
}

export type EventCheckpointStorageOptions = ThreadCheckpointCacheOptions;

/**
 * LangGraph checkpoints kept as events: one stream per thread (`checkpoints-<thread_id>`) holding
 * `CheckpointSaved` and `CheckpointWritesSaved` events. Reads fold the stream, kept in a cache
 * caught up from the last position seen. Independent of any copy of `BaseCheckpointSaver`: the
 * saver classes delegate to it.
 */
export class EventCheckpointStorage {
  private readonly cache: ThreadCheckpointCache;
  private readonly appender: StreamAppender;
  private readonly holds: CheckpointHolds;
  private readonly trailing = new TrailingWrites();
  private readonly deltas = new CheckpointDeltaWriter();

  constructor(
    private readonly store: EventStore,
    private readonly hooks: CheckpointSaverHooks,
    options: EventCheckpointStorageOptions = {},
  ) {
    this.cache = new ThreadCheckpointCache(store, options);
    this.appender = new StreamAppender(store, (stream) => {
      this.deltas.forget(threadIdOfCheckpointStream(stream));
    });
    this.holds = new CheckpointHolds(store, this.cache);
  }

  /**
   * Runs `work` while the caller keeps every other writer off the thread's checkpoints (under the
   * thread's lock): at most its first read of them queries the log, and what it writes is kept
   * back and appended in one commit (see `CheckpointHolds`). It may run twice: see there.
   */
  exclusively<T>(threadId: string, work: (hold: CheckpointHold) => Promise<T>): Promise<T> {
    return this.whileHeld(threadId, () => this.holds.run(threadId, work));
  }

  /**
   * Runs `work` while the caller is the only writer of the thread's checkpoints without holding
   * back what it writes (a run that holds the thread): after its first read of them, they are read
   * from the cache, which folds its appends.
   */
  owned<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    return this.whileHeld(threadId, () => this.cache.exclusively(threadId, work));
  }

  /** While a thread is held its checkpoints are saved as deltas; the bases kept go after. */
  private async whileHeld<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      this.deltas.forget(threadId);
    }
  }

  /**
   * Runs `work` (a run under `async` durability) with the thread's checkpoint writes trailing
   * behind it, so that the puts of several steps gather into one commit (see `TrailingWrites`);
   * resolves once every one of them is in the log, and fails if one could not be appended.
   */
  withTrailingWrites<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    return this.trailing.run(threadId, work);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = configString(config, 'checkpoint_ns') ?? '';
    const checkpointId = checkpointIdOf(config);
    const thread = await this.read(threadId);
    const record = checkpointId ? thread.checkpoint(ns, checkpointId) : thread.latest(ns);
    if (!record) return undefined;
    return this.toTuple(threadId, thread, record, checkpointId ? config : undefined);
  }

  async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) {
      throw new Error(
        'Failed to list checkpoints. The passed RunnableConfig is missing a required "thread_id" field in its "configurable" property: checkpoints are stored per thread, so listing every thread is not supported.',
      );
    }
    const thread = await this.read(threadId);
    const records = thread.find({
      ns: configString(config, 'checkpoint_ns'),
      id: checkpointIdOf(config) || undefined,
      before: (options.before && checkpointIdOf(options.before)) || undefined,
    });
    const serde = this.hooks.serde();
    let remaining = options.limit;
    for (const record of records) {
      if (remaining !== undefined && remaining <= 0) return;
      const metadata = await decodeValue(serde, record.metadata);
      if (options.filter && !matchesFilter(metadata, options.filter)) continue;
      if (remaining !== undefined) remaining -= 1;
      yield await this.toTuple(threadId, thread, record, undefined, metadata);
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
  ): Promise<RunnableConfig> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) {
      throw new Error(
        'Failed to put checkpoint. The passed RunnableConfig is missing a required "thread_id" field in its "configurable" property. When using a checkpointer, you must pass a "thread_id" so the checkpointer knows which conversation thread to persist state for. Example: graph.stream(input, { configurable: { thread_id: "my-thread-id" } })',
      );
    }
    if (typeof checkpoint.id !== 'string' || checkpoint.id === '') {
      throw new Error('Failed to put checkpoint: it has no id');
    }
    const ns = configString(config, 'checkpoint_ns') ?? '';
    const serde = this.hooks.serde();
    const [storedCheckpoint, storedMetadata] = await Promise.all([
      encodeValue(serde, this.hooks.copyCheckpoint(checkpoint)),
      encodeValue(serde, { ...runMetadataOf(config), ...metadata }),
    ]);
    const data: CheckpointSavedData = {
      checkpoint_ns: ns,
      checkpoint_id: checkpoint.id,
      parent_checkpoint_id: checkpointIdOf(config) || null,
      checkpoint: storedCheckpoint,
      metadata: storedMetadata,
    };
    await this.save(threadId, { type: CHECKPOINT_SAVED, data });
    return {
      configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id },
    };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const threadId = threadIdOf(config);
    const checkpointId = configString(config, 'checkpoint_id');
    if (threadId === undefined) {
      throw new Error(
        'Failed to put writes. The passed RunnableConfig is missing a required "thread_id" field in its "configurable" property. When using a checkpointer, you must pass a "thread_id" so the checkpointer knows which conversation thread to persist state for. Example: graph.stream(input, { configurable: { thread_id: "my-thread-id" } })',
      );
    }
    if (checkpointId === undefined) {
      throw new Error(
        'Failed to put writes. The passed RunnableConfig is missing a required "checkpoint_id" field in its "configurable" property.',
      );
    }
    if (writes.length === 0) return;
    const serde = this.hooks.serde();
    const data: CheckpointWritesSavedData = {
      checkpoint_ns: configString(config, 'checkpoint_ns') ?? '',
      checkpoint_id: checkpointId,
      task_id: taskId,
      task_path: taskPath ?? '',
      writes: await Promise.all(
        writes.map(async ([channel, value], index) => ({
          channel,
          idx: writeIndex(this.hooks.writesIdxMap, channel, index),
          value: await encodeValue(serde, value),
        })),
      ),
    };
    await this.save(threadId, { type: CHECKPOINT_WRITES_SAVED, data });
  }

  async deleteThread(threadId: string): Promise<void> {
    this.deltas.forget(threadId);
    this.cache.forget(threadId);
    await this.store.deleteStream(checkpointStreamOf(threadId));
    this.cache.forget(threadId);
  }

  /**
   * `BaseCheckpointSaver.getDeltaChannelHistory` from one catch-up instead of a `getTuple` (one
   * query) per ancestor. Same result as `MemorySaver`'s override: walking from the target's
   * parent, each channel collects the writes stored on the path and stops at the nearest ancestor
   * whose checkpoint holds a value for it (its seed).
   */
  async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    const { config, channels } = options;
    if (channels.length === 0) return {};
    const collected = new Map<string, CheckpointPendingWrite[]>(channels.map((ch) => [ch, []]));
    const seeds = new Map<string, unknown>();
    const threadId = threadIdOf(config);
    if (threadId !== undefined) {
      const ns = configString(config, 'checkpoint_ns') ?? '';
      const thread = await this.read(threadId);
      const targetId = checkpointIdOf(config) || thread.latest(ns)?.id;
      const serde = this.hooks.serde();
      const remaining = new Set(channels);
      for (const ancestor of targetId === undefined ? [] : thread.ancestors(ns, targetId)) {
        if (remaining.size === 0) break;
        const checkpoint = (await decodeValue(serde, ancestor.checkpoint)) as Checkpoint;
        const values: Record<string, unknown> = checkpoint.channel_values;
        const writes = thread.writes(ns, ancestor.id);
        for (let i = writes.length - 1; i >= 0; i -= 1) {
          const write = writes[i];
          if (!write || !remaining.has(write.channel)) continue;
          collected
            .get(write.channel)
            ?.push([write.taskId, write.channel, await decodeValue(serde, write.value)]);
        }
        for (const ch of [...remaining]) {
          if (Object.prototype.hasOwnProperty.call(values, ch) && values[ch] !== undefined) {
            seeds.set(ch, values[ch]);
            remaining.delete(ch);
          }
        }
      }
    }
    const result: Record<string, DeltaChannelHistory> = {};
    for (const ch of channels) {
      const history: DeltaChannelHistory = { writes: [...(collected.get(ch) ?? [])].reverse() };
      if (seeds.has(ch)) history.seed = seeds.get(ch);
      result[ch] = history;
    }
    return result;
  }

  /**
   * Kept back while the thread is held; otherwise appended, after anything the hold kept, and
   * waited for unless the thread's writes trail.
   */
  private async save(threadId: string, event: CheckpointEvent): Promise<void> {
    if (this.holds.keep(threadId, event)) return;
    await this.holds.flush(threadId);
    const appended = this.append(threadId, event);
    if (!this.trailing.track(threadId, appended)) await appended;
  }

  /** The thread's checkpoints, with the writes still trailing behind its run. */
  private async read(threadId: string): Promise<ThreadCheckpoints> {
    await this.trailing.settled(threadId);
    return this.cache.read(threadId);
  }

  private async append(threadId: string, written: CheckpointEvent): Promise<void> {
    const event = this.storedForm(threadId, written);
    const toAppend: EventToAppend = { eventId: uuidv7(), type: event.type, data: event.data };
    const position = await this.appender.append(checkpointStreamOf(threadId), toAppend);
    this.cache.recordAppended(threadId, position, toAppend.eventId, event);
  }

  /** A checkpoint of a held thread is stored as what changed since its parent, where it pays. */
  private storedForm(threadId: string, event: CheckpointEvent): CheckpointEvent {
    if (event.type !== CHECKPOINT_SAVED || !this.cache.isHeld(threadId)) return event;
    const data = this.deltas.encode(threadId, event.data, (ns, id) =>
      this.cache.loggedCheckpoint(threadId, ns, id),
    );
    return data === event.data ? event : { type: CHECKPOINT_SAVED, data };
  }

  private async toTuple(
    threadId: string,
    thread: ThreadCheckpoints,
    record: CheckpointRecord,
    config: RunnableConfig | undefined,
    decodedMetadata?: unknown,
  ): Promise<CheckpointTuple> {
    const serde = this.hooks.serde();
    const [checkpoint, metadata, pendingWrites] = await Promise.all([
      decodeValue(serde, record.checkpoint) as Promise<Checkpoint>,
      decodedMetadata === undefined
        ? decodeValue(serde, record.metadata)
        : Promise.resolve(decodedMetadata),
      Promise.all(
        thread
          .writes(record.ns, record.id)
          .map(async (write): Promise<CheckpointPendingWrite> => [
            write.taskId,
            write.channel,
            await decodeValue(serde, write.value),
          ]),
      ),
    ]);
    if (checkpoint.v < 4 && record.parentId !== undefined) {
      await this.migratePendingSends(checkpoint, thread, record.ns, record.parentId);
    }
    const tuple: CheckpointTuple = {
      config: config ?? {
        configurable: { thread_id: threadId, checkpoint_ns: record.ns, checkpoint_id: record.id },
      },
      checkpoint,
      metadata: metadata as CheckpointMetadata,
      pendingWrites,
    };
    if (record.parentId !== undefined) {
      tuple.parentConfig = {
        configurable: {
          thread_id: threadId,
          checkpoint_ns: record.ns,
          checkpoint_id: record.parentId,
        },
      };
    }
    return tuple;
  }

  /**
   * Checkpoints older than format 4 kept pending `Send`s as writes to the TASKS channel of their
   * parent: LangGraph expects them back in `channel_values[TASKS]` (as `MemorySaver` does).
   */
  private async migratePendingSends(
    checkpoint: Checkpoint,
    thread: ThreadCheckpoints,
    ns: string,
    parentId: string,
  ): Promise<void> {
    const serde = this.hooks.serde();
    const tasks = this.hooks.tasksChannel;
    const sends = await Promise.all(
      thread
        .writes(ns, parentId)
        .filter((write) => write.channel === tasks)
        .map((write) => decodeValue(serde, write.value)),
    );
    const loose: Partial<Checkpoint> = checkpoint;
    const values: Record<string, unknown> = (loose.channel_values ??= {});
    const versions: Record<string, ChannelVersion> = (loose.channel_versions ??= {});
    values[tasks] = sends;
    const existing = Object.values(versions);
    versions[tasks] =
      existing.length > 0 ? maxChannelVersion(existing) : this.hooks.firstChannelVersion();
  }
}

/** A write's idx: its special index (negative) for error/interrupt/resume/scheduled, else its position. */
export function writeIndex(
  writesIdxMap: Readonly<Record<string, number>>,
  channel: string,
  position: number,
): number {
  const special = Object.prototype.hasOwnProperty.call(writesIdxMap, channel)
    ? writesIdxMap[channel]
    : undefined;
  return typeof special === 'number' ? special : position;
}

/**
 * What the run's config says about the run (its metadata and the public configurable values such
 * as run_id, graph_id, assistant_id, user_id), kept with each checkpoint as the interface's state
 * metadata shows it. Private (`__`), checkpoint, tracing (`ls_`) and task (`langgraph_`) keys, and non-scalar values, are
 * left out.
 */
export function runMetadataOf(config: RunnableConfig): Record<string, unknown> {
  const scalars = (source: unknown): [string, unknown][] =>
    typeof source === 'object' && source !== null
      ? Object.entries(source).filter(
          ([key, value]) =>
            !key.startsWith('__') &&
            !key.startsWith('checkpoint_') &&
            !key.startsWith('ls_') &&
            !key.startsWith('langgraph_') &&
            (value === null || ['string', 'number', 'boolean'].includes(typeof value)),
        )
      : [];
  return Object.fromEntries([...scalars(config.metadata), ...scalars(config.configurable)]);
}

/** Every filter entry equals the metadata's value for that key (deeply, for objects and arrays). */
export function matchesFilter(metadata: unknown, filter: Record<string, unknown>): boolean {
  if (typeof metadata !== 'object' || metadata === null) return Object.keys(filter).length === 0;
  const values = metadata as Record<string, unknown>;
  return Object.entries(filter).every(([key, value]) => deepEqual(values[key], value));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.prototype.hasOwnProperty.call(right, key)) &&
    keys.every((key) => deepEqual(left[key], right[key]))
  );
}

function maxChannelVersion(versions: readonly ChannelVersion[]): ChannelVersion {
  return versions.reduce((max, version) =>
    compareChannelVersions(max, version) >= 0 ? max : version,
  );
}

function compareChannelVersions(a: ChannelVersion, b: ChannelVersion): number {
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
  return String(a).localeCompare(String(b));
}

/** `configurable.thread_id`: a string, or undefined when missing. */
function threadIdOf(config: RunnableConfig): string | undefined {
  const value: unknown = config.configurable?.['thread_id'];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new Error(
      `Invalid configurable value for key "thread_id": expected a non-empty string (got ${value === '' ? 'an empty string' : typeof value})`,
    );
  }
  return value;
}

/** `configurable[key]` when it is a string. */
function configString(config: RunnableConfig, key: string): string | undefined {
  const value: unknown = config.configurable?.[key];
  return typeof value === 'string' ? value : undefined;
}

/** LangGraph's `getCheckpointId`: `checkpoint_id`, or the older `thread_ts`, or "". */
function checkpointIdOf(config: RunnableConfig): string {
  return configString(config, 'checkpoint_id') || configString(config, 'thread_ts') || '';
}
