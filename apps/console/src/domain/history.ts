import type { components } from '../api/control-plane.schema';
import { diffValues, flatten, type Change } from './diff';
import { shortId } from './short-id';

export type HistoryEntry = components['schemas']['DeploymentHistory']['resources'][number];

/** The id of the listener built into every control plane (its LOCAL_LISTENER_ID). */
const LOCAL_LISTENER_ID = '6c6f6361-6c00-4000-8000-000000000000';

/** Who caused an event, as an auditor reads it. */
export function actorLabel(actor: HistoryEntry['actor']): string {
  if (!actor) return 'unknown';
  switch (actor.kind) {
    case 'api_key':
      return `API key ${String(actor.key_id)}`;
    case 'listener':
      return actor.listener_id === LOCAL_LISTENER_ID
        ? 'the local listener'
        : `listener ${shortId(String(actor.listener_id))}`;
    case 'git_host':
      return `git push (integration ${String(actor.integration_id)})`;
    default:
      return JSON.stringify(actor);
  }
}

const TITLES: Readonly<Record<string, string>> = {
  DeploymentCreated: 'Deployment created',
  DeploymentConfigChanged: 'Configuration changed',
  RevisionCreated: 'Revision created',
  UploadUrlIssued: 'Upload URL issued',
  DeploymentUrlAssigned: 'URL assigned',
  DeploymentStatusChanged: 'Deployment status',
  RevisionStatusChanged: 'Revision status',
  RevisionSourceResolved: 'Source resolved',
  RevisionActivated: 'Revision went live',
  RevisionRedeployRequested: 'Redeploy requested',
  DeploymentDeleteRequested: 'Delete requested',
  DeploymentDeleted: 'Deployment deleted',
};

/** Fields that say where and when, not what changed. */
const BOOKKEEPING = new Set([
  'at',
  'now',
  'created_at',
  'updated_at',
  'issued_at',
  'tenant_id',
  'deployment_id',
  'tracing_project_id',
  'secrets',
  'secrets_changed',
  'status',
  'status_message',
]);

export type TimelineItem = {
  readonly entry: HistoryEntry;
  readonly title: string;
  readonly actor: string;
  /** For status transitions: the new status, and the message that came with it. */
  readonly status: string | null;
  readonly message: string | null;
  /** What the event changed, field by field (a revision against the one before it). */
  readonly changes: readonly Change[];
  /** Names of the secrets the event set or changed; their values never reach the console. */
  readonly secretNames: readonly string[];
};

function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

function withoutBookkeeping(changes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(changes).filter(([name]) => !BOOKKEEPING.has(name)));
}

/** Only the leaves that hold a value: a field left unset is no change. */
function setLeaves(value: Record<string, unknown>): Change[] {
  return [...flatten(value)]
    .filter(([, leaf]) => leaf !== null && leaf !== undefined)
    .map(([path, leaf]) => ({ path, kind: 'added' as const, after: leaf }));
}

/** The history as the timeline shows it, oldest first. */
export function timelineOf(history: readonly HistoryEntry[]): TimelineItem[] {
  let previousRevision: Record<string, unknown> | undefined;
  return history.map((entry) => {
    const fields = withoutBookkeeping(entry.changes);
    let changes: Change[];
    if (entry.event === 'RevisionCreated') {
      const config = Object.fromEntries(
        Object.entries(fields).filter(([name]) => name !== 'trigger' && name !== 'source'),
      );
      changes = previousRevision ? diffValues(previousRevision, config) : setLeaves(config);
      previousRevision = config;
    } else {
      changes = setLeaves(fields);
    }
    const secretNames =
      entry.event === 'RevisionCreated'
        ? stringList(entry.changes.secrets_changed)
        : stringList(entry.changes.secrets);
    const { status, status_message: message } = entry.changes;
    return {
      entry,
      title: TITLES[entry.event] ?? entry.event,
      actor: actorLabel(entry.actor),
      status: typeof status === 'string' ? status : null,
      message: typeof message === 'string' ? message : null,
      changes,
      secretNames,
    };
  });
}

/**
 * The revision that served the deployment at `moment`: the last one activated at or before it;
 * none before the first activation, nor once the deployment was deleted.
 */
export function liveRevisionAt(history: readonly HistoryEntry[], moment: Date): string | null {
  let live: string | null = null;
  for (const entry of history) {
    if (new Date(entry.recorded_at).getTime() > moment.getTime()) break;
    if (entry.event === 'RevisionActivated') live = entry.revision_id;
    if (entry.event === 'DeploymentDeleted') live = null;
  }
  return live;
}

const SETTLED = new Set([
  'DEPLOYED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
  'CREATE_FAILED',
]);

/** A revision in one of these statuses changes no more by itself. */
export function isSettled(status: string): boolean {
  return SETTLED.has(status);
}

/** Consecutive events of one revision, newest first, and the status they left it in. */
export interface TimelineGroup {
  /** Null for events of the deployment before any revision. */
  readonly revisionId: string | null;
  readonly items: readonly TimelineItem[];
  /** The newest status among the group's events, if any. */
  readonly status: string | null;
}

/**
 * The timeline, newest first, in runs of consecutive events about the same revision: an event of
 * the deployment itself (a change, a delete) goes with the revision it led to or followed.
 */
export function groupTimeline(items: readonly TimelineItem[]): TimelineGroup[] {
  const groups: { revisionId: string | null; items: TimelineItem[] }[] = [];
  for (const item of [...items].reverse()) {
    const revision = item.entry.revision_id ?? null;
    const current = groups.at(-1);
    if (current && (revision === null || current.revisionId === revision)) {
      current.items.push(item);
    } else if (current && current.revisionId === null) {
      current.revisionId = revision;
      current.items.push(item);
    } else {
      groups.push({ revisionId: revision, items: [item] });
    }
  }
  return groups.map((group) => ({
    ...group,
    status: group.items.find((item) => item.status !== null)?.status ?? null,
  }));
}
