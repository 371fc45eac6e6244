import type { JsonObject, JsonValue } from '#libs/event-store';
import { toJsonValue } from '../common/json-payload.js';
import { toCheckpointReference, type CheckpointReference } from '../execution/debug-payloads.js';
import type { ThreadStateSnapshot } from './thread.events.js';

/** The parts of LangGraph's StateSnapshot that the API shows. */
export interface StateSnapshotLike {
  values: unknown;
  next: readonly string[];
  tasks: readonly TaskLike[];
  metadata?: Record<string, unknown>;
  createdAt?: string;
  config?: { configurable?: Record<string, unknown> };
  parentConfig?: { configurable?: Record<string, unknown> };
}

interface TaskLike {
  id: string;
  name: string;
  error?: unknown;
  interrupts?: unknown[];
  path?: unknown[];
  state?: unknown;
  result?: unknown;
}

/** What a thread keeps of a snapshot: its values, the nodes to run next and open interrupts. */
export function summarizeState(snapshot: StateSnapshotLike): ThreadStateSnapshot {
  const interrupts: JsonObject = {};
  for (const task of snapshot.tasks) {
    if (task.interrupts?.length) interrupts[task.id] = toJsonValue(task.interrupts);
  }
  return { values: toJsonValue(snapshot.values), next: [...snapshot.next], interrupts };
}

function checkpointOf(config: StateSnapshotLike['config']): CheckpointReference | null {
  return toCheckpointReference(config, true);
}

function isSnapshot(value: unknown): value is StateSnapshotLike {
  return typeof value === 'object' && value !== null && 'values' in value && 'next' in value;
}

function errorMessage(error: unknown): string | null {
  if (error === undefined || error === null) return null;
  return error instanceof Error ? error.message : JSON.stringify(error);
}

/** A thread's state as the API shows it (the SDK's `ThreadState`), checkpoint ids included. */
export interface ThreadStateResource {
  readonly values: JsonValue;
  readonly next: JsonValue;
  readonly tasks: JsonValue;
  readonly metadata: JsonValue;
  readonly created_at: string | null;
  readonly checkpoint: JsonValue;
  readonly checkpoint_id: string | null;
  readonly parent_checkpoint: JsonValue;
  readonly parent_checkpoint_id: string | null;
}

/** A thread state as the API shows it, in the shape of the reference server plus the checkpoint ids. */
export function threadStateResource(snapshot: StateSnapshotLike): ThreadStateResource {
  const checkpoint = checkpointOf(snapshot.config);
  const parent = checkpointOf(snapshot.parentConfig);
  const metadata = { ...(snapshot.metadata ?? {}) };
  if (metadata.checkpoint_ns === '') delete metadata.checkpoint_ns;
  return toJsonValue({
    values: snapshot.values ?? {},
    next: snapshot.next,
    tasks: snapshot.tasks.map((task) => ({
      id: task.id,
      name: task.name,
      error: errorMessage(task.error),
      interrupts: task.interrupts ?? [],
      path: task.path ?? [],
      checkpoint:
        task.state && typeof task.state === 'object' && 'configurable' in task.state
          ? ((task.state as { configurable?: unknown }).configurable ?? null)
          : null,
      state: isSnapshot(task.state) ? threadStateResource(task.state) : null,
      result: task.result ?? null,
    })),
    metadata,
    created_at: snapshot.createdAt ?? null,
    checkpoint,
    checkpoint_id: checkpoint?.checkpoint_id ?? null,
    parent_checkpoint: parent,
    parent_checkpoint_id: parent?.checkpoint_id ?? null,
  }) as unknown as ThreadStateResource;
}

/** The state of a thread no run has touched yet. */
export const EMPTY_THREAD_STATE: ThreadStateResource = {
  values: {},
  next: [],
  tasks: [],
  metadata: {},
  created_at: null,
  checkpoint: null,
  checkpoint_id: null,
  parent_checkpoint: null,
  parent_checkpoint_id: null,
};
