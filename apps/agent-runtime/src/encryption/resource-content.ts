import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '#libs/domain';
import { isSkeletonField } from './thread-content.js';

/**
 * What of a store item's, a cron's and an assistant's events is content, encrypted under a data
 * key of the resource, and what is the skeleton left in clear. The scope of the key is what a
 * user deletes: one store item (a namespace's stream holds many, deleted one by one), one cron,
 * one assistant.
 */
const STORE_PREFIX = 'store-';
const CRON_PREFIX = 'cron-';
const ASSISTANT_PREFIX = 'assistant-';

export type ResourceStreamOf =
  | { readonly kind: 'store' }
  | { readonly kind: 'cron'; readonly cronId: string }
  | { readonly kind: 'assistant'; readonly assistantId: string };

export function resourceStreamOf(streamId: string): ResourceStreamOf | undefined {
  if (streamId.startsWith(STORE_PREFIX)) return { kind: 'store' };
  if (streamId.startsWith(CRON_PREFIX)) {
    return { kind: 'cron', cronId: streamId.slice(CRON_PREFIX.length) };
  }
  if (streamId.startsWith(ASSISTANT_PREFIX)) {
    return { kind: 'assistant', assistantId: streamId.slice(ASSISTANT_PREFIX.length) };
  }
  return undefined;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * A store item's scope names the item by digests of its namespace (labels joined with dots, as
 * `store_items.namespace_path` holds them) and key, so the key store holds neither in clear. The
 * erasure trigger computes the same digests with PostgreSQL's `sha256`.
 */
export const storeItemScope = (namespace: readonly string[], key: string): string =>
  `store:${sha256(namespace.join('.'))}:${sha256(key)}`;
export const cronScope = (cronId: string): string => `cron:${cronId}`;
export const assistantScope = (assistantId: string): string => `assistant:${assistantId}`;

/** The scope of the key for an event of the stream; undefined when the event names no item. */
export function resourceScopeOf(stream: ResourceStreamOf, data: JsonObject): string | undefined {
  switch (stream.kind) {
    case 'cron':
      return cronScope(stream.cronId);
    case 'assistant':
      return assistantScope(stream.assistantId);
    case 'store': {
      const { namespace, key } = data;
      const labels = Array.isArray(namespace) ? namespace : [];
      if (typeof key !== 'string' || !labels.every((label) => typeof label === 'string')) {
        return undefined;
      }
      return storeItemScope(labels, key);
    }
  }
}

/** The events that record a resource's deletion: they destroy its key, and stay in clear. */
const ERASURES: Readonly<Record<ResourceStreamOf['kind'], ReadonlySet<string>>> = {
  store: new Set(['StoreItemDeleted', 'StoreItemExpired']),
  cron: new Set(['CronDeleted']),
  assistant: new Set(['AssistantDeleted']),
};

/** The events that may make the resource (again: a store item is written after its deletion). */
const CREATIONS: Readonly<Record<ResourceStreamOf['kind'], ReadonlySet<string>>> = {
  store: new Set(['StoreItemPut']),
  cron: new Set(['CronCreated']),
  assistant: new Set(['AssistantCreated']),
};

export const isResourceErasure = (stream: ResourceStreamOf, type: string): boolean =>
  ERASURES[stream.kind].has(type);

export const createsResource = (stream: ResourceStreamOf, type: string): boolean =>
  CREATIONS[stream.kind].has(type);

/** Besides ids and times: a store item's address, a cron's schedule, an assistant's version. */
const CLEAR_FIELDS: Readonly<Record<ResourceStreamOf['kind'], ReadonlySet<string>>> = {
  store: new Set(['namespace', 'key', 'ttl_minutes']),
  cron: new Set([
    'schedule',
    'timezone',
    'end_time',
    'enabled',
    'on_run_completed',
    'tick',
    'previous_tick',
    'next_run_date',
  ]),
  assistant: new Set(['version']),
};

/**
 * Whether a field of a resource's event stays in clear. A store item's namespace is its stream's
 * name already; its value and embeddings are content. A cron's payload and metadata, an
 * assistant's name, description, config, context and metadata are content.
 */
export function isResourceSkeletonField(
  stream: ResourceStreamOf,
  field: string,
  value: JsonValue,
): boolean {
  if (stream.kind === 'store' && field === 'namespace') return true;
  return CLEAR_FIELDS[stream.kind].has(field) || isSkeletonField(field, value);
}
