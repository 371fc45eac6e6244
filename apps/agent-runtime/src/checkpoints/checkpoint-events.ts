import type { JsonObject, JsonValue } from '#libs/event-store';
import type { CheckpointExtension } from './checkpoint-delta.js';
import { parseDeltaReferences } from '../common/json-delta.js';
import { isJsonObject } from '../common/json-object.js';

/** Event types of a thread's checkpoint stream. */
export const CHECKPOINT_SAVED = 'CheckpointSaved';
export const CHECKPOINT_WRITES_SAVED = 'CheckpointWritesSaved';
export const CHECKPOINT_METADATA_PATCHED = 'CheckpointMetadataPatched';

const CHECKPOINT_STREAM_PREFIX = 'checkpoints-';

/** Every checkpoint and pending write of one LangGraph thread lives in this stream. */
export function checkpointStreamOf(threadId: string): string {
  return `${CHECKPOINT_STREAM_PREFIX}${threadId}`;
}

/** The thread whose checkpoint stream this is. */
export function threadIdOfCheckpointStream(stream: string): string {
  return stream.slice(CHECKPOINT_STREAM_PREFIX.length);
}

/**
 * A value as the saver's serializer wrote it: JSON stays readable JSON, anything else (bytes, a
 * custom serializer's format, or JSON PostgreSQL's jsonb cannot hold exactly) is kept as base64.
 */
export type StoredValue = StoredJson | StoredBytes;
export type StoredJson = { type: 'json'; value: JsonValue };
export type StoredBytes = { type: string; base64: string };

export type CheckpointSavedData = {
  checkpoint_ns: string;
  checkpoint_id: string;
  /** The checkpoint this one follows (`configurable.checkpoint_id` of the put), or null. */
  parent_checkpoint_id: string | null;
  /** The checkpoint whole, or with `extends` what changed since the checkpoint named there. */
  checkpoint: StoredValue;
  metadata: StoredValue;
  /** Absent: `checkpoint` is whole (always so in events written before deltas). */
  extends?: CheckpointExtension;
};

export type StoredWrite = {
  channel: string;
  /** Position in the task's writes, or the negative index of a special channel (WRITES_IDX_MAP). */
  idx: number;
  value: StoredValue;
};

export type CheckpointWritesSavedData = {
  checkpoint_ns: string;
  checkpoint_id: string;
  task_id: string;
  /** The task's path (`writesSortKey`), "" for input, `Command` updates and resume values. */
  task_path: string;
  writes: StoredWrite[];
};

/** `PATCH /threads/{id}/state`: keys merged into a checkpoint's (JSON) metadata. */
export type CheckpointMetadataPatchedData = {
  checkpoint_ns: string;
  checkpoint_id: string;
  metadata: JsonObject;
};

export type CheckpointEvent =
  | { readonly type: typeof CHECKPOINT_SAVED; readonly data: CheckpointSavedData }
  | { readonly type: typeof CHECKPOINT_WRITES_SAVED; readonly data: CheckpointWritesSavedData }
  | {
      readonly type: typeof CHECKPOINT_METADATA_PATCHED;
      readonly data: CheckpointMetadataPatchedData;
    };

export class MalformedCheckpointEventError extends Error {
  readonly code = 'malformed_checkpoint_event';

  constructor(
    readonly eventType: string,
    reason: string,
  ) {
    super(`Malformed ${eventType} event: ${reason}`);
  }
}

/**
 * Reads a recorded event of a checkpoint stream. Other event types give undefined (a later version
 * may add some); a checkpoint event whose data does not have the expected shape throws.
 */
export function parseCheckpointEvent(event: {
  readonly type: string;
  readonly data: JsonObject;
}): CheckpointEvent | undefined {
  switch (event.type) {
    case CHECKPOINT_SAVED:
      return { type: CHECKPOINT_SAVED, data: parseCheckpointSaved(event.data) };
    case CHECKPOINT_WRITES_SAVED:
      return { type: CHECKPOINT_WRITES_SAVED, data: parseCheckpointWritesSaved(event.data) };
    case CHECKPOINT_METADATA_PATCHED:
      return { type: CHECKPOINT_METADATA_PATCHED, data: parseMetadataPatched(event.data) };
    default:
      return undefined;
  }
}

function parseCheckpointSaved(data: JsonObject): CheckpointSavedData {
  const fail = (reason: string) => new MalformedCheckpointEventError(CHECKPOINT_SAVED, reason);
  const parent = data['parent_checkpoint_id'];
  if (parent !== null && typeof parent !== 'string') {
    throw fail('parent_checkpoint_id is neither a string nor null');
  }
  const saved: CheckpointSavedData = {
    checkpoint_ns: stringField(data, 'checkpoint_ns', fail),
    checkpoint_id: stringField(data, 'checkpoint_id', fail),
    parent_checkpoint_id: parent ?? null,
    checkpoint: parseStoredValue(data['checkpoint'], 'checkpoint', fail),
    metadata: parseStoredValue(data['metadata'], 'metadata', fail),
  };
  const extension = data['extends'];
  if (extension === undefined) return saved;
  if (saved.checkpoint.type !== 'json' || !('value' in saved.checkpoint)) {
    throw fail('a checkpoint stored as a delta is not JSON');
  }
  return { ...saved, extends: parseExtension(extension, fail) };
}

function parseExtension(value: JsonValue, fail: (reason: string) => Error): CheckpointExtension {
  if (!isJsonObject(value)) throw fail('extends is not an object');
  return {
    checkpoint_id: stringField(value, 'checkpoint_id', fail),
    ...parseDeltaReferences(value, (reason) => fail(`extends.${reason}`)),
  };
}

function parseCheckpointWritesSaved(data: JsonObject): CheckpointWritesSavedData {
  const fail = (reason: string) =>
    new MalformedCheckpointEventError(CHECKPOINT_WRITES_SAVED, reason);
  const writes = data['writes'];
  if (!Array.isArray(writes)) throw fail('writes is not an array');
  const taskPath = data['task_path'];
  return {
    checkpoint_ns: stringField(data, 'checkpoint_ns', fail),
    checkpoint_id: stringField(data, 'checkpoint_id', fail),
    task_id: stringField(data, 'task_id', fail),
    task_path: typeof taskPath === 'string' ? taskPath : '',
    writes: writes.map((write, index) => {
      if (!isJsonObject(write)) throw fail(`writes[${index}] is not an object`);
      const idx = write['idx'];
      if (typeof idx !== 'number' || !Number.isInteger(idx)) {
        throw fail(`writes[${index}].idx is not an integer`);
      }
      return {
        channel: stringField(write, 'channel', fail),
        idx,
        value: parseStoredValue(write['value'], `writes[${index}].value`, fail),
      };
    }),
  };
}

function parseMetadataPatched(data: JsonObject): CheckpointMetadataPatchedData {
  const fail = (reason: string) =>
    new MalformedCheckpointEventError(CHECKPOINT_METADATA_PATCHED, reason);
  const metadata = data['metadata'];
  if (!isJsonObject(metadata)) throw fail('metadata is not an object');
  return {
    checkpoint_ns: stringField(data, 'checkpoint_ns', fail),
    checkpoint_id: stringField(data, 'checkpoint_id', fail),
    metadata,
  };
}

function parseStoredValue(
  value: JsonValue | undefined,
  field: string,
  fail: (reason: string) => Error,
): StoredValue {
  if (!isJsonObject(value) || typeof value['type'] !== 'string') {
    throw fail(`${field} is not a stored value`);
  }
  const type = value['type'];
  const base64 = value['base64'];
  if (typeof base64 === 'string') return { type, base64 };
  const json = value['value'];
  if (type === 'json' && json !== undefined) return { type, value: json };
  throw fail(`${field} has neither a json value nor base64`);
}

function stringField(data: JsonObject, field: string, fail: (reason: string) => Error): string {
  const value = data[field];
  if (typeof value !== 'string') throw fail(`${field} is not a string`);
  return value;
}
