/**
 * Reshaping of LangGraph's `debug`, `tasks` and `checkpoints` stream payloads into the form
 * the reference agent server sends: LangGraph.js emits camelCase `parentConfig` and raw
 * RunnableConfigs, the server adds snake_case `parent_config` plus compact checkpoint
 * references and hides internal (`__`-prefixed) configurable keys.
 */
import { isRecord, withoutKey } from '../common/records.js';

export interface CheckpointReference {
  readonly thread_id: string;
  readonly checkpoint_id: string | null;
  readonly checkpoint_ns: string;
  readonly checkpoint_map: Record<string, unknown> | null;
}

function configurableOf(config: unknown): Record<string, unknown> | undefined {
  if (!isRecord(config)) return undefined;
  const configurable = config['configurable'];
  return isPlainRecord(configurable) ? configurable : undefined;
}

function isNullishOr(value: unknown, guard: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || guard(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && !Array.isArray(value);
}

/**
 * Builds `{ thread_id, checkpoint_id, checkpoint_ns, checkpoint_map }` from a config, or
 * `null` when the config does not identify a checkpoint. A task's config may lack the
 * checkpoint id (`requireCheckpointId: false`); a checkpoint's config may not.
 */
export function toCheckpointReference(
  config: unknown,
  requireCheckpointId: boolean,
): CheckpointReference | null {
  const configurable = configurableOf(config);
  if (configurable === undefined) return null;
  const {
    thread_id: threadId,
    checkpoint_id: checkpointId,
    checkpoint_ns: checkpointNs,
    checkpoint_map: checkpointMap,
  } = configurable;
  if (!isString(threadId) || threadId === '') return null;
  const checkpointIdValid = requireCheckpointId
    ? isString(checkpointId)
    : isNullishOr(checkpointId, isString);
  if (!checkpointIdValid) return null;
  if (!isNullishOr(checkpointNs, isString) || !isNullishOr(checkpointMap, isPlainRecord)) {
    return null;
  }
  return {
    thread_id: threadId,
    checkpoint_id:
      isString(checkpointId) && (requireCheckpointId || checkpointId !== '') ? checkpointId : null,
    checkpoint_ns: isString(checkpointNs) && checkpointNs !== '' ? checkpointNs : '',
    checkpoint_map: isPlainRecord(checkpointMap) ? checkpointMap : null,
  };
}

/** Drops `__`-prefixed configurable keys and the callbacks from a config, if it has any. */
function withoutInternalConfig(config: unknown): unknown {
  const configurable = configurableOf(config);
  if (configurable === undefined || !isRecord(config)) return config;
  return {
    ...withoutKey(config, 'callbacks'),
    configurable: Object.fromEntries(
      Object.entries(configurable).filter(([key]) => !key.startsWith('__')),
    ),
  };
}

/**
 * A task whose `state` is a subgraph's config gets a `checkpoint` reference instead of it.
 * Other tasks are returned unchanged.
 */
export function toDebugTask(task: unknown): unknown {
  if (!isRecord(task)) return task;
  const { state, ...rest } = task;
  const checkpoint = toCheckpointReference(state, false);
  if (checkpoint === null) return task;
  return { ...rest, checkpoint };
}

/**
 * A checkpoint as emitted by LangGraph's `checkpoints`/`debug` modes, with `checkpoint`,
 * `parent_checkpoint` and `parent_config` added and internal configurable keys removed.
 */
export function toDebugCheckpoint(payload: unknown): unknown {
  if (!isRecord(payload)) return payload;
  const { parentConfig, ...rest } = payload;
  const tasks = rest['tasks'];
  return {
    ...rest,
    config: withoutInternalConfig(rest['config']),
    tasks: Array.isArray(tasks) ? tasks.map(toDebugTask) : tasks,
    checkpoint: toCheckpointReference(rest['config'], true),
    parent_checkpoint: toCheckpointReference(parentConfig, true),
    parent_config: withoutInternalConfig(parentConfig),
  };
}

/** A `debug` mode chunk: checkpoints and task results are reshaped, task starts are not. */
export function toDebugEvent(chunk: unknown): unknown {
  if (!isRecord(chunk)) return chunk;
  switch (chunk['type']) {
    case 'checkpoint':
      return { ...chunk, payload: toDebugCheckpoint(chunk['payload']) };
    case 'task_result':
      return { ...chunk, payload: toDebugTask(chunk['payload']) };
    default:
      return chunk;
  }
}

/**
 * The reference's legacy `checkpoints` mode payload: the full checkpoint reduced to the
 * state `values`, the checkpoint `metadata` and the `next` nodes.
 */
export function toCheckpointsEvent(payload: unknown): unknown {
  if (!isRecord(payload)) return payload;
  return { values: payload['values'], metadata: payload['metadata'], next: payload['next'] };
}

/**
 * LangGraph's lightweight checkpoint envelope (`{ id, parent_id?, step, source }`), which it
 * interleaves before `values` chunks of streamed subgraph runs.
 */
export function isCheckpointEnvelope(payload: unknown): boolean {
  if (!isRecord(payload)) return false;
  return (
    typeof payload['id'] === 'string' &&
    ('source' in payload || typeof payload['step'] === 'number') &&
    !('values' in payload) &&
    !('config' in payload)
  );
}
