import type { JsonObject, JsonValue } from '#libs/domain';
import type { Durability } from '../execution/graph-stream.js';
import type { ChunkExtension } from './values-chunk-delta.js';

export type RunStatus = 'pending' | 'running' | 'success' | 'error' | 'interrupted' | 'timeout';
export type MultitaskStrategy = 'reject' | 'enqueue' | 'interrupt' | 'rollback';

/** What the run record shows under `kwargs`: exactly the interface's keys. */
export interface RunKwargs extends JsonObject {
  input: JsonValue;
  config: JsonObject;
  webhook: string | null;
  temporary: boolean;
  stream_mode: string[];
  feedback_keys: string[] | null;
  interrupt_after: string[] | '*' | null;
  interrupt_before: string[] | '*' | null;
}

export interface RunCreatedData extends JsonObject {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  assistant_version: number;
  graph_id: string;
  metadata: JsonObject;
  kwargs: RunKwargs;
  multitask_strategy: MultitaskStrategy;
  /** Resume after an interrupt: `{resume, update, goto}`. */
  command: JsonObject | null;
  /** The assistant's context merged with the run's. */
  context: JsonObject;
  stream_subgraphs: boolean;
  created_at: string;
  /** `after_seconds`: the run waits in the queue until then. Runs recorded before have none. */
  not_before: string | null;
  /** LangGraph's checkpoint durability for the run; null: LangGraph's default. */
  durability: Durability | null;
  /**
   * Seconds an attempt may run before it ends as `timeout`; null or absent (runs recorded
   * before): the runtime's default (`BERTH_RUN_TIMEOUT_SECONDS`).
   */
  timeout_seconds: number | null;
}

export interface RunFinishedData extends JsonObject {
  run_id: string;
  thread_id: string;
  status: Exclude<RunStatus, 'pending' | 'running'>;
  attempt: number;
  /** `{error, message}` when the run failed. */
  error: JsonObject | null;
  /** Whether the fields below hold the thread's state after the run (not for a run never started). */
  state_captured: boolean;
  /** The thread's state after the run: its values, the next nodes and open interrupts. */
  values: JsonValue;
  /**
   * Set: `values` holds what changed since the values named there (see ChunkExtension). Null, or
   * absent in outcomes recorded before: `values` is whole.
   */
  values_extends: ChunkExtension | null;
  next: string[];
  interrupts: JsonObject;
  temporary: boolean;
  finished_at: string;
}

export type RunEvent =
  | { readonly type: 'RunCreated'; readonly data: RunCreatedData }
  | {
      readonly type: 'RunStarted';
      readonly data: { run_id: string; thread_id: string; attempt: number; started_at: string };
    }
  | {
      readonly type: 'RunStepEmitted';
      /** A `values` chunk with `extends` holds what changed since the chunk named there. */
      readonly data: { seq: number; event: string; data: JsonValue; extends?: ChunkExtension };
    }
  | { readonly type: 'RunFinished'; readonly data: RunFinishedData }
  /** A run cancelled with `rollback`: it no longer counts among the thread's runs. */
  | {
      readonly type: 'RunDeleted';
      readonly data: { run_id: string; thread_id: string; deleted_at: string };
    };

export const RUN_STREAM_PREFIX = 'run-';
/** A run's stream begins with `RunCreated`, then its first chunk (attempt 1's `metadata`) here. */
export const FIRST_CHUNK_POSITION = 1;
export const runStream = (runId: string): string => `${RUN_STREAM_PREFIX}${runId}`;
