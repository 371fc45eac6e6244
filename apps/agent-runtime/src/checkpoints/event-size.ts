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
export const DEFAULT_CHECKPOINT_CACHE_MB = 128;

/**
 * The checkpoint cache's budget in bytes of JSON text, from `BERTH_CHECKPOINT_CACHE_MB` (0 keeps
 * only the threads being worked on). Unset, it is an eighth of the V8 heap limit, at most 128 MB:
 * parsed, the cached text takes about twice its size (1.8x measured for message lists), so about
 * a quarter of the heap at most, the rest left to runs in flight. Node sizes its heap from the
 * memory it may use (a control group's limit included): about 1 GB in a runtime jail's default
 * 2 GB (`BERTH_RUNTIME_MEMORY_MB`), so the budget is 128 MB there and less in smaller jails.
 */
export function checkpointCacheBytesOf(
  env: Environment,
  heapLimit: number = getHeapStatistics().heap_size_limit,
): number {
  const mb = envInteger('BERTH_CHECKPOINT_CACHE_MB', env['BERTH_CHECKPOINT_CACHE_MB'], -1, {
    min: 0,
    max: 1_048_576,
  });
  return mb >= 0 ? mb * MB : Math.min(DEFAULT_CHECKPOINT_CACHE_MB * MB, Math.floor(heapLimit / 8));
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
