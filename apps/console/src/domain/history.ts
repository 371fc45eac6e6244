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
  DeploymentDeletionStalled: 'Deletion failed, retrying',
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
  'message',
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
    const { status } = entry.changes;
    const message = entry.changes.message ?? entry.changes.status_message;
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

/** A card of the history's timeline, as the control plane derives it. */
export type TimelineCard = components['schemas']['DeploymentHistory']['timeline'][number];

/** Where a revision's source was uploaded and its digest: kept in a card's events, not its head. */
const isSourceLocation = (change: Change): boolean => change.path.includes('source_tarball_');

/** What a change card says up front, and the events it opens on. */
export interface CardDetails {
  /** The card's events, newest first. */
  readonly items: readonly TimelineItem[];
  /** What the change did, field by field, without where its source was stored. */
  readonly changes: readonly Change[];
  /** True when it brought a new source (a new upload, another tarball). */
  readonly newSource: boolean;
}

/** A card's events (by seq, from `timelineOf` of the same history) and what it says up front. */
export function cardDetails(card: TimelineCard, items: readonly TimelineItem[]): CardDetails {
  const events = new Set(card.events);
  const own = items.filter((item) => events.has(item.entry.seq));
  const all = own.flatMap((item) => item.changes);
  return {
    items: own.reverse(),
    changes: card.kind === 'change' ? all.filter((change) => !isSourceLocation(change)) : [],
    newSource: card.kind === 'change' && all.some(isSourceLocation),
  };
}

/** The timeline newest first, as the console shows it. */
export function newestFirst(cards: readonly TimelineCard[]): TimelineCard[] {
  return [...cards].reverse();
}
