import type { JsonObject } from '#libs/domain';
import {
  evolveAssistant,
  initialAssistantState,
  type AssistantState,
} from './assistant.decider.js';
import type { AssistantEvent, AssistantVersionData } from './assistant.events.js';

/** One field of a version that differs from the version it was made from. */
export type VersionChange =
  | { readonly field: string; readonly change: 'added'; readonly to: unknown }
  | { readonly field: string; readonly change: 'removed'; readonly from: unknown }
  | {
      readonly field: string;
      readonly change: 'modified';
      readonly from: unknown;
      readonly to: unknown;
    };

/** Where a version came from: the version it was made from, who made it, what it changed. */
export interface VersionProvenance {
  /** The version that was latest when this one was made; null for the first. */
  readonly previous_version: number | null;
  /** Who made it, as recorded on its event; null when nobody was recorded. */
  readonly changed_by: JsonObject | null;
  readonly changes: readonly VersionChange[];
}

/** The fields a version holds, compared in this order. */
const SCALARS = ['graph_id', 'name', 'description'] as const;
const OBJECTS = ['config', 'context', 'metadata'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `a.b` for plain keys, `a["x.y"]` for keys a dot would make ambiguous. */
function pathOf(prefix: string, key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `${prefix}.${key}` : `${prefix}[${JSON.stringify(key)}]`;
}

/** The leaves of a JSON value by path: arrays and empty objects are leaves. */
function leaves(value: unknown, path: string, into: Map<string, unknown>): Map<string, unknown> {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) leaves(child, pathOf(path, key), into);
  } else {
    into.set(path, value);
  }
  return into;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function objectChanges(field: string, before: JsonObject, after: JsonObject): VersionChange[] {
  const none = new Map<string, unknown>();
  const left = Object.keys(before).length > 0 ? leaves(before, field, new Map()) : none;
  const right = Object.keys(after).length > 0 ? leaves(after, field, new Map()) : none;
  const paths = [...new Set([...left.keys(), ...right.keys()])].sort();
  return paths.flatMap((path): VersionChange[] => {
    if (!right.has(path)) return [{ field: path, change: 'removed', from: left.get(path) }];
    if (!left.has(path)) return [{ field: path, change: 'added', to: right.get(path) }];
    return same(left.get(path), right.get(path))
      ? []
      : [{ field: path, change: 'modified', from: left.get(path), to: right.get(path) }];
  });
}

/**
 * What `after` changed from `before`, field by field: `graph_id`, `name` and `description` whole,
 * `config`, `context` and `metadata` leaf by leaf (`context.model`). Without `before` (the first
 * version), every field it set counts as added.
 */
export function versionChanges(
  before: AssistantVersionData | undefined,
  after: AssistantVersionData,
): VersionChange[] {
  const scalars = SCALARS.flatMap((field): VersionChange[] => {
    const from = before?.[field] ?? null;
    const to = after[field];
    if (same(from, to)) return [];
    if (to === null) return [{ field, change: 'removed', from }];
    return from === null
      ? [{ field, change: 'added', to }]
      : [{ field, change: 'modified', from, to }];
  });
  const objects = OBJECTS.flatMap((field) =>
    objectChanges(field, before?.[field] ?? {}, after[field]),
  );
  return [...scalars, ...objects];
}

/** An event of an assistant's stream with who caused it. */
export interface AssistantStreamEvent {
  readonly event: AssistantEvent;
  readonly metadata: JsonObject;
}

function actorOf(metadata: JsonObject): JsonObject | null {
  const { actor } = metadata;
  return isObject(actor) ? actor : null;
}

/**
 * Each version of the assistant (of its current life: a deleted and recreated id starts over),
 * compared with the version that was latest when it was made, and who made it.
 */
export function versionProvenance(
  events: readonly AssistantStreamEvent[],
): Map<number, VersionProvenance> {
  let state: AssistantState = initialAssistantState;
  let provenance = new Map<number, VersionProvenance>();
  for (const { event, metadata } of events) {
    if (event.type === 'AssistantCreated') {
      const version = event.data;
      provenance = new Map([
        [
          version.version,
          {
            previous_version: null,
            changed_by: actorOf(metadata),
            changes: versionChanges(undefined, version),
          },
        ],
      ]);
    } else if (event.type === 'AssistantVersioned') {
      const base = state.versions.find((version) => version.version === state.version);
      provenance.set(event.data.version, {
        previous_version: base?.version ?? null,
        changed_by: actorOf(metadata),
        changes: versionChanges(base, event.data),
      });
    }
    state = evolveAssistant(state, event);
  }
  return provenance;
}
