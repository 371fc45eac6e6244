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

/** A state as the API shows it (the SDK's `ThreadState`); a subgraph task's state is one too. */
export interface StateResource {
  readonly values: JsonValue;
  readonly next: JsonValue;
  readonly tasks: JsonValue;
  readonly metadata: JsonValue;
  readonly created_at: string | null;
  readonly checkpoint: JsonValue;
  readonly parent_checkpoint: JsonValue;
}

/**
 * A thread's state as the API shows it, with the Python server's `checkpoint_id` and
 * `parent_checkpoint_id` at its top level (the states of subgraph tasks have neither, as in the
 * JS server's answers).
 */
export interface ThreadStateResource extends StateResource {
  readonly checkpoint_id: string | null;
  readonly parent_checkpoint_id: string | null;
}

function stateResource(snapshot: StateSnapshotLike): StateResource {
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
      state: isSnapshot(task.state) ? stateResource(task.state) : null,
      result: task.result ?? null,
    })),
    metadata,
    created_at: snapshot.createdAt ?? null,
    checkpoint: checkpointOf(snapshot.config),
    parent_checkpoint: checkpointOf(snapshot.parentConfig),
  }) as unknown as StateResource;
}

/** A thread's state (or a subgraph's, read by its `checkpoint_ns`) as the API answers it. */
export function threadStateResource(snapshot: StateSnapshotLike): ThreadStateResource {
  const state = stateResource(snapshot);
  return {
    ...state,
    checkpoint_id: checkpointIdOf(state.checkpoint),
    parent_checkpoint_id: checkpointIdOf(state.parent_checkpoint),
  };
}

function checkpointIdOf(checkpoint: JsonValue): string | null {
  const id =
    typeof checkpoint === 'object' && checkpoint !== null && !Array.isArray(checkpoint)
      ? checkpoint.checkpoint_id
      : undefined;
  return typeof id === 'string' ? id : null;
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
