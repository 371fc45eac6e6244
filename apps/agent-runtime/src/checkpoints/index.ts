export {
  CHECKPOINT_METADATA_PATCHED,
  CHECKPOINT_SAVED,
  CHECKPOINT_WRITES_SAVED,
  MalformedCheckpointEventError,
  checkpointStreamOf,
  parseCheckpointEvent,
  type CheckpointEvent,
  type CheckpointSavedData,
  type CheckpointWritesSavedData,
  type StoredBytes,
  type StoredJson,
  type StoredValue,
  type StoredWrite,
} from './checkpoint-events.js';
export {
  copyCheckpointFields,
  createEventCheckpointSaver,
  eventCheckpointSaverClass,
  type BaseCheckpointSaverConstructor,
  type CheckpointLibrary,
  type EventCheckpointSaverClass,
  type EventCheckpointSaverOptions,
} from './create-event-checkpoint-saver.js';
export {
  EventCheckpointSaver,
  createInstalledEventCheckpointSaver,
} from './event-checkpoint-saver.js';
export {
  DEFAULT_TASKS_CHANNEL,
  DEFAULT_WRITES_IDX_MAP,
  EventCheckpointStorage,
  matchesFilter,
  writeIndex,
  type CheckpointSaverHooks,
  type EventCheckpointStorageOptions,
} from './event-checkpoint-storage.js';
export { decodeValue, encodeValue, readableJson, type CheckpointSerde } from './stored-value.js';
export {
  DEFAULT_CHECKPOINT_CACHE_MB,
  checkpointCacheBytesOf,
  checkpointEventBytes,
} from './event-size.js';
export {
  ThreadCheckpointCache,
  type ThreadCheckpointCacheOptions,
} from './thread-checkpoint-cache.js';
export {
  ThreadCheckpoints,
  compareWriteRecords,
  foldCheckpointEvents,
  latestCheckpointOf,
  type CheckpointQuery,
  type CheckpointRecord,
  type WriteRecord,
} from './thread-checkpoints.js';
export type { CheckpointHold } from './checkpoint-holds.js';
