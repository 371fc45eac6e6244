import type { JsonValue } from '#libs/domain';
import { RUN_STREAM_PREFIX } from '../run-records/run.events.js';

/**
 * What of a thread's events is its content, encrypted under the thread's data key, and what is
 * the audit skeleton left in clear: types (never in `data`), ids, times, counts and states.
 */
const THREAD_PREFIX = 'thread-';
const CHECKPOINTS_PREFIX = 'checkpoints-';

/** The events that record a thread's deletion: they destroy its key, and stay readable. */
export const THREAD_ERASURES: ReadonlySet<string> = new Set(['ThreadDeleted', 'ThreadExpired']);

/** What an event whose key is gone is read as: its skeleton, under this type. */
export const CONTENT_ERASED = 'ContentErased';

export const threadScope = (threadId: string): string => `thread:${threadId}`;

/** The streams whose events are a thread's content, and how their thread is found. */
export type ThreadStreamOf =
  | { readonly kind: 'thread'; readonly threadId: string }
  | { readonly kind: 'checkpoints'; readonly threadId: string }
  | { readonly kind: 'run'; readonly runId: string };

export function threadStreamOf(streamId: string): ThreadStreamOf | undefined {
  if (streamId.startsWith(THREAD_PREFIX)) {
    return { kind: 'thread', threadId: streamId.slice(THREAD_PREFIX.length) };
  }
  if (streamId.startsWith(CHECKPOINTS_PREFIX)) {
    return { kind: 'checkpoints', threadId: streamId.slice(CHECKPOINTS_PREFIX.length) };
  }
  if (streamId.startsWith(RUN_STREAM_PREFIX)) {
    return { kind: 'run', runId: streamId.slice(RUN_STREAM_PREFIX.length) };
  }
  return undefined;
}

const CLEAR_FIELDS: ReadonlySet<string> = new Set([
  'seq',
  'event',
  'attempt',
  'status',
  'temporary',
  'state_captured',
  'ttl_minutes',
  'strategy',
  'multitask_strategy',
  'assistant_version',
  'stream_subgraphs',
  'durability',
  'timeout_seconds',
  'checkpoint_ns',
  'copied_from',
]);

const isScalar = (value: JsonValue): boolean => value === null || typeof value !== 'object';

/** Whether a field of a thread's event stays in clear: a scalar id, time or state, never content. */
export function isSkeletonField(field: string, value: JsonValue): boolean {
  if (!isScalar(value)) return false;
  return CLEAR_FIELDS.has(field) || field.endsWith('_id') || field.endsWith('_at');
}

/** Every field of a deletion stays in clear: it is what the audit keeps of the thread. */
export const isErasure = (type: string): boolean => THREAD_ERASURES.has(type);
