import type { JsonObject } from '#libs/event-store';
import type { HistoryEntry } from './deployment-history.js';

/** What every card of the timeline carries: where it starts, and the events it stands for. */
interface CardBase {
  /** The first event's position in the deployment's stream. */
  readonly seq: number;
  readonly recorded_at: string;
  readonly revision_id: string | null;
  /** Every event the card stands for, by `seq` (the history's `resources`). */
  readonly events: number[];
}

/** Something a person did: created, changed, redeployed or deleted the deployment. */
export interface ChangeCard extends CardBase {
  readonly kind: 'change';
  readonly title: string;
  readonly actor: JsonObject | null;
  /** Names of the secrets the change set, changed or removed; never their values. */
  readonly secrets_changed: string[];
}

export type Phase = 'queued' | 'build' | 'deploy';

/** How long a revision spent in one phase of its walk, and how the phase ended. */
export interface PhaseTime {
  readonly phase: Phase;
  readonly ms: number;
  /**
   * `failed` for a failed build or deploy, `stopped` when the walk was skipped or interrupted in
   * it, `running` while the revision is still in it (`ms` is then the time up to its last event).
   */
  readonly outcome: 'done' | 'failed' | 'stopped' | 'running';
}

/** One walk of a revision from queued to its outcome, on one line. */
export interface StatusWalkCard extends CardBase {
  readonly kind: 'status_walk';
  readonly revision_id: string;
  /** The status it reached last. */
  readonly status: string;
  /** True once that status changes no more by itself. */
  readonly settled: boolean;
  /** True if the walk made the revision the one serving the deployment. */
  readonly activated: boolean;
  readonly phases: PhaseTime[];
  /** The walk in words: "queued 4 ms, built in 25 ms, deployed in 3.1 s". */
  readonly summary: string;
}

/** A revision that failed, and why. */
export interface FailureCard extends CardBase {
  readonly kind: 'failure';
  readonly revision_id: string;
  readonly status: string;
  readonly message: string | null;
}

export type TimelineCard = ChangeCard | StatusWalkCard | FailureCard;

/** Events a person causes (an API key, a git push), each the start of a card of its own. */
const CHANGES: Readonly<Record<string, string>> = {
  DeploymentCreated: 'Deployment created',
  DeploymentConfigChanged: 'Configuration changed',
  RevisionCreated: 'Revision created',
  RevisionRedeployRequested: 'Redeploy requested',
  DeploymentDeleteRequested: 'Delete requested',
};

/** Statuses that end a walk short of its goal, each with a card of its own. */
const FAILURES = new Set(['BUILD_FAILED', 'DEPLOY_FAILED', 'CREATE_FAILED', 'INTERRUPTED']);
/** Endings that stop a walk without a phase failing: the word that says how. */
const STOPS: Readonly<Record<string, string>> = {
  SKIPPED: 'skipped',
  INTERRUPTED: 'interrupted',
  CREATE_FAILED: 'could not be created',
};
const SETTLED = new Set([...FAILURES, 'DEPLOYED', 'SKIPPED']);
const PHASE_OF: Readonly<Record<string, Phase>> = {
  CREATING: 'queued',
  QUEUED: 'queued',
  AWAITING_BUILD: 'queued',
  BUILDING: 'build',
  AWAITING_DEPLOY: 'deploy',
  DEPLOYING: 'deploy',
};

/** A duration as a person reads it: "25 ms", "3.1 s", "2 min 5 s". */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toString()} s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

const PHASE_WORDS: Readonly<Record<Phase, Record<PhaseTime['outcome'], (d: string) => string>>> = {
  queued: {
    done: (d) => `queued ${d}`,
    failed: (d) => `failed after ${d} queued`,
    stopped: (d) => `queued ${d}`,
    running: () => 'queued',
  },
  build: {
    done: (d) => `built in ${d}`,
    failed: (d) => `build failed after ${d}`,
    stopped: (d) => `building ${d}`,
    running: () => 'building',
  },
  deploy: {
    done: (d) => `deployed in ${d}`,
    failed: (d) => `deploy failed after ${d}`,
    stopped: (d) => `deploying ${d}`,
    running: () => 'deploying',
  },
};

type Step = { readonly status: string; readonly at: number; readonly message: string | null };

/** The time a walk spent in each phase: from its start to the first status is queueing. */
export function phasesOf(startedAt: number, steps: readonly Step[]): PhaseTime[] {
  const phases: { phase: Phase; ms: number; outcome: PhaseTime['outcome'] }[] = [];
  const last = steps.at(-1);
  const ending = last && SETTLED.has(last.status) ? last : undefined;
  const spend = (phase: Phase, ms: number): void => {
    const current = phases.at(-1);
    if (current?.phase === phase) current.ms += ms;
    else phases.push({ phase, ms, outcome: 'done' });
  };
  if (steps[0]) spend('queued', Math.max(0, steps[0].at - startedAt));
  steps.forEach((step, index) => {
    const phase = PHASE_OF[step.status];
    if (!phase) return;
    const next = steps[index + 1];
    spend(phase, next ? Math.max(0, next.at - step.at) : 0);
  });
  const current = phases.at(-1);
  if (current) {
    if (!ending) current.outcome = 'running';
    else if (STOPS[ending.status]) current.outcome = 'stopped';
    else if (FAILURES.has(ending.status)) current.outcome = 'failed';
  }
  return phases;
}

function summaryOf(phases: readonly PhaseTime[], last: Step | undefined): string {
  const words = phases.map((time) => PHASE_WORDS[time.phase][time.outcome](durationText(time.ms)));
  const stop = last && STOPS[last.status];
  if (stop) words.push(stop);
  const said = words.join(', ') || 'queued';
  const settledShort = last && SETTLED.has(last.status) && last.status !== 'DEPLOYED';
  return settledShort && last.message ? `${said}: ${last.message}` : said;
}

type OpenWalk = {
  readonly revisionId: string;
  /** The event that started it: the revision's creation, a redeploy, or its first status. */
  readonly start: HistoryEntry;
  readonly events: number[];
  readonly steps: Step[];
  activated: boolean;
};

function closeWalk(walk: OpenWalk): StatusWalkCard {
  const last = walk.steps.at(-1);
  const phases = phasesOf(new Date(walk.start.recorded_at).getTime(), walk.steps);
  return {
    kind: 'status_walk',
    seq: walk.start.seq,
    recorded_at: walk.start.recorded_at,
    revision_id: walk.revisionId,
    events: walk.events,
    status: last?.status ?? 'QUEUED',
    settled: last ? SETTLED.has(last.status) : false,
    activated: walk.activated,
    phases,
    summary: summaryOf(phases, last),
  };
}

function textOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function namesOf(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((name): name is string => typeof name === 'string')
    : [];
}

const sameActor = (a: JsonObject | null, b: JsonObject | null): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

type Card = ChangeCard | FailureCard | OpenWalk;

const isChange = (card: Card | undefined): card is ChangeCard =>
  card !== undefined && 'kind' in card && card.kind === 'change';

/** A change card, or the one before it that the same request began (same actor, same moment). */
function changeCard(previous: Card | undefined, entry: HistoryEntry, title: string): ChangeCard {
  const secrets = namesOf(
    entry.event === 'RevisionCreated' ? entry.changes.secrets_changed : entry.changes.secrets,
  );
  if (
    isChange(previous) &&
    previous.recorded_at === entry.recorded_at &&
    sameActor(previous.actor, entry.actor)
  ) {
    const more = title.charAt(0).toLowerCase() + title.slice(1);
    return {
      ...previous,
      title: previous.title.includes(more) ? previous.title : `${previous.title}, ${more}`,
      revision_id: previous.revision_id ?? entry.revision_id,
      events: [...previous.events, entry.seq],
      secrets_changed: [...new Set([...previous.secrets_changed, ...secrets])],
    };
  }
  return {
    kind: 'change',
    seq: entry.seq,
    recorded_at: entry.recorded_at,
    revision_id: entry.revision_id,
    events: [entry.seq],
    title,
    actor: entry.actor,
    secrets_changed: secrets,
  };
}

/**
 * The history as a person reads it, oldest first: a card for each change a person made (the
 * events of one request, by one actor at one moment, make one card), one line for each walk of a
 * revision from queued to its outcome with the time each phase took, and a card for each failure.
 * Every event is on a card (`events`), which opens on them: those the platform records about the
 * deployment itself (a URL assigned, its status) go with the card before them.
 */
export function timelineOf(history: readonly HistoryEntry[]): TimelineCard[] {
  const cards: Card[] = [];
  /** Each revision's current walk; `placed` once it has a status to show. */
  const walks = new Map<string, { walk: OpenWalk; placed: boolean }>();
  const openWalk = (revisionId: string, start: HistoryEntry): void => {
    const walk = { revisionId, start, events: [], steps: [], activated: false };
    walks.set(revisionId, { walk, placed: false });
  };
  for (const entry of history) {
    const title = CHANGES[entry.event];
    const revisionId = entry.revision_id;
    if (title) {
      const previous = cards.at(-1);
      const card = changeCard(previous, entry, title);
      if (isChange(previous) && card.seq === previous.seq) cards[cards.length - 1] = card;
      else cards.push(card);
      if (revisionId) openWalk(revisionId, entry);
      continue;
    }
    if (revisionId && entry.event.startsWith('Revision')) {
      if (!walks.has(revisionId)) openWalk(revisionId, entry);
      const current = walks.get(revisionId);
      if (!current) continue;
      const { walk } = current;
      if (!current.placed) {
        cards.push(walk);
        current.placed = true;
      }
      walk.events.push(entry.seq);
      if (entry.event === 'RevisionActivated') walk.activated = true;
      const status = textOf(entry.changes.status);
      if (entry.event !== 'RevisionStatusChanged' || !status) continue;
      const message = textOf(entry.changes.message) ?? textOf(entry.changes.status_message);
      walk.steps.push({ status, at: new Date(entry.recorded_at).getTime(), message });
      if (FAILURES.has(status)) {
        cards.push({
          kind: 'failure',
          seq: entry.seq,
          recorded_at: entry.recorded_at,
          revision_id: revisionId,
          events: [entry.seq],
          status,
          message,
        });
      }
      continue;
    }
    const previous = cards.at(-1);
    previous?.events.push(entry.seq);
  }
  return cards.map((card) => ('steps' in card ? closeWalk(card) : card));
}
