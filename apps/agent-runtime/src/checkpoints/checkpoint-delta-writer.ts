import type { JsonObject } from '#libs/event-store';
import type { CheckpointSavedData } from './checkpoint-events.js';
import { checkpointDelta } from './checkpoint-delta.js';
import { storedValueBytes } from './event-size.js';
import { isJsonObject } from '../common/json-object.js';
import {
  chainAfter,
  continuesChain,
  MAX_DELTA_CHAIN,
  WHOLE,
  type DeltaChain,
} from '../common/delta-chain.js';

/** A checkpoint a delta may be taken against: its whole JSON and the chain it ends. */
export interface DeltaBase extends DeltaChain {
  readonly id: string;
  readonly full: JsonObject;
}

/**
 * Decides how each checkpoint a run appends is stored: whole, or as what changed since its parent
 * (see `checkpointDelta`), until its chain ends (`continuesChain`): a thread's log then grows by
 * at most about twice what its runs add, however long the thread.
 *
 * The parent is the checkpoint this writer encoded last in that namespace of the thread, or one the
 * caller finds already in the log (`logged`). A delta may only follow its base in the stream:
 * `forget` must be called before anything else is appended to the thread when an append of it
 * failed, and when the thread's writer lets it go (what it keeps is the last checkpoint whole).
 */
export class CheckpointDeltaWriter {
  private readonly threads = new Map<string, Map<string, DeltaBase>>();

  constructor(private readonly maxChain = MAX_DELTA_CHAIN) {}

  encode(
    threadId: string,
    data: CheckpointSavedData,
    logged: (ns: string, id: string) => DeltaBase | undefined,
  ): CheckpointSavedData {
    const { checkpoint, checkpoint_ns: ns, parent_checkpoint_id: parentId } = data;
    let namespaces = this.threads.get(threadId);
    if (checkpoint.type !== 'json' || !('value' in checkpoint) || !isJsonObject(checkpoint.value)) {
      namespaces?.delete(ns);
      return data;
    }
    if (!namespaces) {
      namespaces = new Map();
      this.threads.set(threadId, namespaces);
    }
    const full = checkpoint.value;
    const last = namespaces.get(ns);
    const parent =
      parentId === null ? undefined : last?.id === parentId ? last : logged(ns, parentId);
    const delta =
      parent && continuesChain(parent, storedValueBytes(checkpoint), this.maxChain)
        ? checkpointDelta(parent.id, parent.full, full)
        : undefined;
    if (!delta || !parent) {
      namespaces.set(ns, { id: data.checkpoint_id, full, ...WHOLE });
      return data;
    }
    namespaces.set(ns, { id: data.checkpoint_id, full, ...chainAfter(parent, delta.value) });
    return { ...data, checkpoint: { type: 'json', value: delta.value }, extends: delta.extends };
  }

  forget(threadId: string): void {
    this.threads.delete(threadId);
  }
}
