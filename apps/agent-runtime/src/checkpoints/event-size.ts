import { getHeapStatistics } from 'node:v8';
import { jsonTextLength } from '../common/json-text-length.js';
import { envInteger, type Environment } from '#libs/config';
import {
  CHECKPOINT_METADATA_PATCHED,
  CHECKPOINT_SAVED,
  CHECKPOINT_WRITES_SAVED,
  type CheckpointEvent,
  type StoredValue,
} from './checkpoint-events.js';

const MB = 1024 * 1024;

/** The most `BERTH_CHECKPOINT_CACHE_MB` is when unset: see `checkpointCacheBytesOf`. */
export const DEFAULT_CHECKPOINT_CACHE_MB = 64;

/**
 * The checkpoint cache's budget in bytes of heap its folded checkpoints take (estimated, see
 * `checkpointEventHeapBytes`), from `BERTH_CHECKPOINT_CACHE_MB` (0 keeps only the threads being
 * worked on). Unset, it is a sixteenth of the V8 heap limit, at most 64 MB: the cache then fills
 * within the first thousand runs of a busy runtime and its memory levels off there, the rest of
 * the heap left to runs in flight. A jailed runtime's heap limit follows its memory limit
 * (`--max-old-space-size`, 1,344 MiB in the default 2 GiB jail), so the budget is 64 MB there and
 * less in smaller jails.
 */
export function checkpointCacheBytesOf(
  env: Environment,
  heapLimit: number = getHeapStatistics().heap_size_limit,
): number {
  const mb = envInteger('BERTH_CHECKPOINT_CACHE_MB', env['BERTH_CHECKPOINT_CACHE_MB'], -1, {
    min: 0,
    max: 1_048_576,
  });
  return mb >= 0 ? mb * MB : Math.min(DEFAULT_CHECKPOINT_CACHE_MB * MB, Math.floor(heapLimit / 16));
}

/**
 * How much more heap parsed JSON takes than its text: objects, their shapes and strings, measured
 * at 1.8x for message lists and about 2.5x for the example agent's checkpoints in heap snapshots.
 */
const PARSED_JSON_PER_TEXT_BYTE = 2.5;
/** A reference held in an array, as V8 stores it on 64 bits without pointer compression. */
const REFERENCE_BYTES = 8;

/**
 * About how much heap a checkpoint event takes once folded into a thread's checkpoints: its
 * values parsed, and for a checkpoint stored as a delta the lists it extends, which folding makes
 * whole again: each holds a reference to every item of its base beside the items it adds, so a
 * growing conversation costs its folded checkpoints a reference per message per checkpoint.
 */
export function checkpointEventHeapBytes(event: CheckpointEvent): number {
  const parsed = Math.ceil(checkpointEventBytes(event) * PARSED_JSON_PER_TEXT_BYTE);
  if (event.type !== CHECKPOINT_SAVED || !event.data.extends) return parsed;
  let references = 0;
  for (const prefix of Object.values(event.data.extends.prefixes)) references += prefix;
  return parsed + references * REFERENCE_BYTES;
}

/** What an event costs the cache beyond its values: its ids and the records folding it makes. */
const EVENT_OVERHEAD = 160;

/**
 * The length of the JSON text each value was serialized to, for the values this process encoded:
 * what it writes is measured for free, where what it reads has to be estimated.
 */
const textLengths = new WeakMap<StoredValue, number>();

/** Remembers the length of the serializer's text a stored value was made from. */
export function rememberTextLength(stored: StoredValue, length: number): void {
  textLengths.set(stored, length);
}

/**
 * About how many bytes a checkpoint event takes as JSON text: exact for the values this process
 * serialized (the serializer's text length), estimated by a walk for those read from the log (the
 * database driver parsed the text, whose length is gone). Never serialized again.
 */
export function checkpointEventBytes(event: CheckpointEvent): number {
  switch (event.type) {
    case CHECKPOINT_SAVED: {
      const { data } = event;
      return (
        EVENT_OVERHEAD +
        data.checkpoint_ns.length +
        data.checkpoint_id.length +
        (data.parent_checkpoint_id?.length ?? 0) +
        storedValueBytes(data.checkpoint) +
        storedValueBytes(data.metadata)
      );
    }
    case CHECKPOINT_WRITES_SAVED: {
      const { data } = event;
      let bytes =
        EVENT_OVERHEAD +
        data.checkpoint_ns.length +
        data.checkpoint_id.length +
        data.task_id.length +
        data.task_path.length;
      for (const write of data.writes) {
        bytes += 40 + write.channel.length + storedValueBytes(write.value);
      }
      return bytes;
    }
    case CHECKPOINT_METADATA_PATCHED: {
      const { data } = event;
      return (
        EVENT_OVERHEAD +
        data.checkpoint_ns.length +
        data.checkpoint_id.length +
        jsonTextLength(data.metadata)
      );
    }
  }
}

/** A stored value's JSON text: `{"type":…,"value":…}` or `{"type":…,"base64":…}`. */
export function storedValueBytes(stored: StoredValue): number {
  const envelope = 24 + stored.type.length;
  if ('base64' in stored) return envelope + stored.base64.length;
  return envelope + (textLengths.get(stored) ?? jsonTextLength(stored.value));
}
