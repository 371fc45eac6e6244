import type { RunnableConfig } from '@langchain/core/runnables';
import type {
  BaseCheckpointSaver,
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  DeltaChannelHistory,
  PendingWrite,
  ReadonlyCheckpoint,
  SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import type { EventStore } from '#libs/event-store';
import {
  DEFAULT_TASKS_CHANNEL,
  DEFAULT_WRITES_IDX_MAP,
  EventCheckpointStorage,
  type EventCheckpointStorageOptions,
} from './event-checkpoint-storage.js';

/** `BaseCheckpointSaver` of any copy of the library (or a subclass of it). */
export type BaseCheckpointSaverConstructor = abstract new (
  serde?: SerializerProtocol,
) => BaseCheckpointSaver;

/**
 * What the saver takes from a copy of @langchain/langgraph-checkpoint (or @langchain/langgraph,
 * which re-exports it): pass the module namespace itself. Only `BaseCheckpointSaver` is required;
 * the others fall back to the values of the 1.x line.
 */
export interface CheckpointLibrary {
  readonly BaseCheckpointSaver: BaseCheckpointSaverConstructor;
  readonly WRITES_IDX_MAP?: Record<string, number>;
  readonly TASKS?: string;
  readonly copyCheckpoint?: (checkpoint: ReadonlyCheckpoint) => Checkpoint;
}

export interface EventCheckpointSaverOptions extends EventCheckpointStorageOptions {
  /** The serializer; the base class's default (`JsonPlusSerializer`) when omitted. */
  readonly serde?: SerializerProtocol;
}

/** A LangGraph checkpointer whose checkpoints and writes are events of the thread's stream. */
export interface EventCheckpointSaver extends BaseCheckpointSaver {
  /** The storage logic the saver delegates to. */
  readonly storage: EventCheckpointStorage;
}

export type EventCheckpointSaverClass = new (
  store: EventStore,
  options?: EventCheckpointSaverOptions,
) => EventCheckpointSaver;

const classes = new WeakMap<object, EventCheckpointSaverClass>();

/**
 * The saver class extending the given library's `BaseCheckpointSaver`: a graph built with the
 * deployed application's copy of LangGraph gets a checkpointer of that very copy. One class per
 * library, made on first use.
 */
export function eventCheckpointSaverClass(library: CheckpointLibrary): EventCheckpointSaverClass {
  const known = classes.get(library.BaseCheckpointSaver);
  if (known) return known;
  const made = defineEventCheckpointSaver(library);
  classes.set(library.BaseCheckpointSaver, made);
  return made;
}

/** An event-sourced checkpointer built on the given copy of LangGraph's checkpoint library. */
export function createEventCheckpointSaver(
  library: CheckpointLibrary,
  store: EventStore,
  options?: EventCheckpointSaverOptions,
): EventCheckpointSaver {
  const SaverClass = eventCheckpointSaverClass(library);
  return new SaverClass(store, options);
}

function defineEventCheckpointSaver(library: CheckpointLibrary): EventCheckpointSaverClass {
  const copyCheckpoint = library.copyCheckpoint ?? copyCheckpointFields;
  const writesIdxMap = library.WRITES_IDX_MAP ?? DEFAULT_WRITES_IDX_MAP;
  const tasksChannel = library.TASKS ?? DEFAULT_TASKS_CHANNEL;

  return class EventCheckpointSaver
    extends library.BaseCheckpointSaver
    implements EventCheckpointSaver
  {
    readonly storage: EventCheckpointStorage;

    constructor(store: EventStore, options: EventCheckpointSaverOptions = {}) {
      super(options.serde);
      this.storage = new EventCheckpointStorage(
        store,
        {
          serde: () => this.serde,
          writesIdxMap,
          tasksChannel,
          copyCheckpoint,
          firstChannelVersion: () => this.getNextVersion(undefined),
        },
        options,
      );
    }

    getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
      return this.storage.getTuple(config);
    }

    async *list(
      config: RunnableConfig,
      options?: CheckpointListOptions,
    ): AsyncGenerator<CheckpointTuple> {
      yield* this.storage.list(config, options);
    }

    put(
      config: RunnableConfig,
      checkpoint: Checkpoint,
      metadata: CheckpointMetadata,
      _newVersions: ChannelVersions,
    ): Promise<RunnableConfig> {
      return this.storage.put(config, checkpoint, metadata);
    }

    putWrites(
      config: RunnableConfig,
      writes: PendingWrite[],
      taskId: string,
      taskPath?: string,
    ): Promise<void> {
      return this.storage.putWrites(config, writes, taskId, taskPath);
    }

    deleteThread(threadId: string): Promise<void> {
      return this.storage.deleteThread(threadId);
    }

    override getDeltaChannelHistory(options: {
      config: RunnableConfig;
      channels: string[];
    }): Promise<Record<string, DeltaChannelHistory>> {
      return this.storage.getDeltaChannelHistory(options);
    }
  };
}

/** `copyCheckpoint` of the 1.x line, for a library that does not export it. */
export function copyCheckpointFields(checkpoint: ReadonlyCheckpoint): Checkpoint {
  return {
    v: checkpoint.v,
    id: checkpoint.id,
    ts: checkpoint.ts,
    channel_values: { ...checkpoint.channel_values },
    channel_versions: { ...checkpoint.channel_versions },
    versions_seen: structuredClone(checkpoint.versions_seen),
  };
}
