import type { JsonObject } from '#libs/event-store';
import {
  CHECKPOINT_METADATA_PATCHED,
  CHECKPOINT_SAVED,
  CHECKPOINT_WRITES_SAVED,
  MalformedCheckpointEventError,
  parseCheckpointEvent,
  type CheckpointEvent,
  type CheckpointSavedData,
  type StoredValue,
} from './checkpoint-events.js';
import { foldCheckpointDelta } from './checkpoint-delta.js';
import { isJsonObject } from '../common/json-object.js';
import { chainAfter, WHOLE, type DeltaChain } from '../common/delta-chain.js';

export interface CheckpointRecord extends DeltaChain {
  readonly ns: string;
  readonly id: string;
  readonly parentId: string | undefined;
  /** Always whole: a checkpoint stored as a delta is folded onto its base. */
  readonly checkpoint: StoredValue;
  readonly metadata: StoredValue;
}

export interface WriteRecord {
  readonly taskId: string;
  readonly taskPath: string;
  readonly channel: string;
  readonly idx: number;
  readonly value: StoredValue;
}

export interface CheckpointQuery {
  /** Only this namespace; every namespace when undefined. */
  readonly ns?: string | undefined;
  /** Only this checkpoint. */
  readonly id?: string | undefined;
  /** Only checkpoints older than this one (ids are time-ordered uuid6). */
  readonly before?: string | undefined;
}

/**
 * The checkpoints and pending writes of one thread, folded from its events in stream order.
 *
 * Follows `MemorySaver`: saving a checkpoint id again replaces it; a regular write keeps the first
 * value stored under its `(task_id, idx)`, a special one (negative idx: error, interrupt, resume,
 * scheduled) the last. Writes may arrive before their checkpoint: LangGraph does not wait for a
 * put to finish before saving the writes made against it.
 */
export class ThreadCheckpoints {
  private readonly byNamespace = new Map<string, Map<string, CheckpointRecord>>();
  private readonly latestIds = new Map<string, string>();
  private readonly writesByCheckpoint = new Map<string, Map<string, WriteRecord>>();

  apply(event: CheckpointEvent): void {
    switch (event.type) {
      case CHECKPOINT_SAVED: {
        const { data } = event;
        const ns = data.checkpoint_ns;
        let checkpoints = this.byNamespace.get(ns);
        if (!checkpoints) {
          checkpoints = new Map();
          this.byNamespace.set(ns, checkpoints);
        }
        checkpoints.set(data.checkpoint_id, {
          ns,
          id: data.checkpoint_id,
          parentId: data.parent_checkpoint_id ?? undefined,
          ...wholeCheckpoint(data, checkpoints),
          metadata: data.metadata,
        });
        const latest = this.latestIds.get(ns);
        if (latest === undefined || data.checkpoint_id > latest) {
          this.latestIds.set(ns, data.checkpoint_id);
        }
        return;
      }
      case CHECKPOINT_WRITES_SAVED: {
        const { data } = event;
        const key = writesKey(data.checkpoint_ns, data.checkpoint_id);
        let writes = this.writesByCheckpoint.get(key);
        if (!writes) {
          writes = new Map();
          this.writesByCheckpoint.set(key, writes);
        }
        for (const write of data.writes) {
          const writeKey = `${data.task_id},${write.idx}`;
          if (write.idx >= 0 && writes.has(writeKey)) continue;
          writes.set(writeKey, {
            taskId: data.task_id,
            taskPath: data.task_path,
            channel: write.channel,
            idx: write.idx,
            value: write.value,
          });
        }
        return;
      }
      case CHECKPOINT_METADATA_PATCHED: {
        const { data } = event;
        const checkpoints = this.byNamespace.get(data.checkpoint_ns);
        const record = checkpoints?.get(data.checkpoint_id);
        // Only JSON metadata can be patched; the patch is refused before it is appended otherwise.
        if (!checkpoints || record?.metadata.type !== 'json' || !('value' in record.metadata)) {
          return;
        }
        const current = record.metadata.value;
        const base =
          typeof current === 'object' && current !== null && !Array.isArray(current) ? current : {};
        checkpoints.set(data.checkpoint_id, {
          ...record,
          metadata: { type: 'json', value: { ...base, ...data.metadata } },
        });
        return;
      }
    }
  }

  checkpoint(ns: string, id: string): CheckpointRecord | undefined {
    return this.byNamespace.get(ns)?.get(id);
  }

  /** The namespace's checkpoint with the greatest id. */
  latest(ns: string): CheckpointRecord | undefined {
    const id = this.latestIds.get(ns);
    return id === undefined ? undefined : this.checkpoint(ns, id);
  }

  /** Matching checkpoints, newest first. */
  find(query: CheckpointQuery = {}): CheckpointRecord[] {
    const namespaces =
      query.ns === undefined ? [...this.byNamespace.values()] : [this.byNamespace.get(query.ns)];
    const found: CheckpointRecord[] = [];
    for (const checkpoints of namespaces) {
      if (!checkpoints) continue;
      if (query.id !== undefined) {
        const record = checkpoints.get(query.id);
        if (record && (query.before === undefined || record.id < query.before)) found.push(record);
        continue;
      }
      for (const record of checkpoints.values()) {
        if (query.before === undefined || record.id < query.before) found.push(record);
      }
    }
    return found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  /** The pending writes of a checkpoint in `writesSortKey` order: (task path, task id, idx). */
  writes(ns: string, checkpointId: string): WriteRecord[] {
    const writes = this.writesByCheckpoint.get(writesKey(ns, checkpointId));
    return writes ? [...writes.values()].sort(compareWriteRecords) : [];
  }

  /** The ancestors of a checkpoint, parent first, as far as they are stored. */
  ancestors(ns: string, checkpointId: string): CheckpointRecord[] {
    const chain: CheckpointRecord[] = [];
    const seen = new Set<string>([checkpointId]);
    let parentId = this.checkpoint(ns, checkpointId)?.parentId;
    while (parentId !== undefined && !seen.has(parentId)) {
      const parent = this.checkpoint(ns, parentId);
      if (!parent) break;
      chain.push(parent);
      seen.add(parentId);
      parentId = parent.parentId;
    }
    return chain;
  }
}

/** A saved checkpoint whole: as stored, or folded onto the base it extends. */
function wholeCheckpoint(
  data: CheckpointSavedData,
  saved: ReadonlyMap<string, CheckpointRecord>,
): DeltaChain & { checkpoint: StoredValue } {
  const extension = data.extends;
  if (!extension) return { checkpoint: data.checkpoint, ...WHOLE };
  const fail = (reason: string) =>
    new MalformedCheckpointEventError(
      CHECKPOINT_SAVED,
      `checkpoint ${data.checkpoint_id} extends ${extension.checkpoint_id}, ${reason}`,
    );
  const base = saved.get(extension.checkpoint_id);
  if (!base) throw fail('which is not saved before it in its namespace');
  if (!('value' in base.checkpoint) || !('value' in data.checkpoint)) {
    throw fail('and one of them is not JSON');
  }
  const [baseValue, delta] = [base.checkpoint.value, data.checkpoint.value];
  if (!isJsonObject(baseValue) || !isJsonObject(delta))
    throw fail('and one of them is not an object');
  try {
    const value = foldCheckpointDelta(baseValue, delta, extension);
    return { checkpoint: { type: 'json', value }, ...chainAfter(base, delta) };
  } catch (error) {
    throw fail(error instanceof Error ? error.message : String(error));
  }
}

/** Folds recorded events of a checkpoint stream (other event types are skipped). */
export function foldCheckpointEvents(
  events: Iterable<{ readonly type: string; readonly data: JsonObject }>,
): ThreadCheckpoints {
  const thread = new ThreadCheckpoints();
  for (const event of events) {
    const parsed = parseCheckpointEvent(event);
    if (parsed) thread.apply(parsed);
  }
  return thread;
}

/** The newest checkpoint of a namespace in a thread's events. */
export function latestCheckpointOf(
  events: Iterable<{ readonly type: string; readonly data: JsonObject }>,
  ns = '',
): CheckpointRecord | undefined {
  return foldCheckpointEvents(events).latest(ns);
}

/**
 * LangGraph's `compareWritesSortKeys` for write records: strings by code point (Python `str`
 * order), idx numerically. Kept here so that the order does not depend on which copy of
 * @langchain/langgraph-checkpoint the application brings (older ones lack the function).
 */
export function compareWriteRecords(
  a: Pick<WriteRecord, 'taskPath' | 'taskId' | 'idx'>,
  b: Pick<WriteRecord, 'taskPath' | 'taskId' | 'idx'>,
): number {
  return (
    compareByCodePoint(a.taskPath, b.taskPath) ||
    compareByCodePoint(a.taskId, b.taskId) ||
    Math.sign(a.idx - b.idx)
  );
}

export function compareByCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  let ai = 0;
  let bi = 0;
  while (ai < a.length && bi < b.length) {
    const ac = a.codePointAt(ai) ?? 0;
    const bc = b.codePointAt(bi) ?? 0;
    if (ac !== bc) return ac < bc ? -1 : 1;
    ai += ac > 0xffff ? 2 : 1;
    bi += bc > 0xffff ? 2 : 1;
  }
  if (ai >= a.length && bi >= b.length) return 0;
  return ai >= a.length ? -1 : 1;
}

function writesKey(ns: string, checkpointId: string): string {
  return JSON.stringify([ns, checkpointId]);
}
