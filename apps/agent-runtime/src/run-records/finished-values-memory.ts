import type { EventStore, JsonValue } from '#libs/event-store';
import type { DeltaChain } from '../common/delta-chain.js';
import { isJsonObject } from '../common/json-object.js';
import { jsonTextLength } from '../common/json-text-length.js';
import type { FinishedValues } from './values-chunk-delta.js';

/** About the JSON text kept over all threads; least recently finished threads go first. */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The final values of the last run this process recorded on each thread, so that the thread's next
 * run here stores its first `values` chunk as what changed since then (see ValuesChunkEncoder).
 * Only outcomes already in the log are remembered. A thread's next run on another process, or
 * after this one forgot, stores that chunk whole. Readers of the log fold onto them too (see
 * ValuesChunkExpander): the run a chunk or an outcome extends is most often a thread's last.
 */
export class FinishedValuesMemory {
  private readonly threads = new Map<string, FinishedValues & { readonly bytes: number }>();
  /** The thread of each run remembered. */
  private readonly runs = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  /** `values` whole; `chain`: where the run's outcome stored them in their chain of deltas. */
  remember(threadId: string, runId: string, values: JsonValue, chain: DeltaChain): void {
    this.forget(threadId);
    if (!isJsonObject(values)) return;
    const bytes = jsonTextLength(values);
    if (bytes > this.maxBytes) return;
    this.threads.set(threadId, { runId, values, chain, bytes });
    this.runs.set(runId, threadId);
    this.bytes += bytes;
    for (const oldest of this.threads.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(oldest);
    }
  }

  of(threadId: string): FinishedValues | undefined {
    return this.threads.get(threadId);
  }

  /** The final values of the run, if it is the last this process recorded on its thread. */
  ofRun(runId: string): FinishedValues | undefined {
    const threadId = this.runs.get(runId);
    return threadId === undefined ? undefined : this.threads.get(threadId);
  }

  forget(threadId: string): void {
    const kept = this.threads.get(threadId);
    if (!kept) return;
    this.threads.delete(threadId);
    this.runs.delete(kept.runId);
    this.bytes -= kept.bytes;
  }
}

const memories = new WeakMap<EventStore, FinishedValuesMemory>();

/** The memory of the runs this process records through `store`: one per store, for its writers and readers. */
export function finishedValuesMemoryOf(store: EventStore): FinishedValuesMemory {
  let memory = memories.get(store);
  if (!memory) {
    memory = new FinishedValuesMemory();
    memories.set(store, memory);
  }
  return memory;
}
