import { invalid, type JsonObject } from '#libs/domain';

/** The keys of LangGraph's `configurable` that point at one checkpoint of a thread. */
export interface CheckpointAddress {
  readonly checkpoint_id?: string;
  /** A subgraph's namespace (`node:task_id`, nested ones joined by `|`); '' is the root graph. */
  readonly checkpoint_ns?: string;
  readonly checkpoint_map?: JsonObject;
}

/**
 * The checkpoint a request's `checkpoint` object points at. Only the address keys are taken,
 * as the reference server's schema keeps only them: a `thread_id` in it (the SDK sends a task's
 * whole checkpoint back) never moves the request to another thread. A null key is an absent one.
 */
export function checkpointAddress(
  checkpoint: JsonObject | null | undefined,
  field = 'checkpoint',
): CheckpointAddress {
  if (checkpoint === null || checkpoint === undefined) return {};
  const { checkpoint_id: id, checkpoint_ns: ns, checkpoint_map: map } = checkpoint;
  if (id != null && typeof id !== 'string') {
    throw invalid(`${field}.checkpoint_id`, 'must be a string');
  }
  if (ns != null && typeof ns !== 'string') {
    throw invalid(`${field}.checkpoint_ns`, 'must be a string');
  }
  if (map != null && (typeof map !== 'object' || Array.isArray(map))) {
    throw invalid(`${field}.checkpoint_map`, 'must be an object');
  }
  return {
    ...(id != null ? { checkpoint_id: id } : {}),
    ...(ns != null ? { checkpoint_ns: ns } : {}),
    ...(map != null ? { checkpoint_map: map } : {}),
  };
}
