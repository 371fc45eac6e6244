import type { ListenerCommand } from './deployment-listener.decide.js';
import { isBuildable } from './deployment-rules.js';
import type { RevisionStatus } from './deployment.types.js';
import {
  findRevision,
  TERMINAL_REVISION_STATUSES,
  type DeploymentState,
  type RevisionState,
} from './deployment.state.js';

/** What the listener knows of a deployment beyond its events: what runs on its machine. */
export type DeploymentFacts = {
  /** A revision of this deployment is being rolled out here now. */
  readonly rolling: boolean;
  /** The deployment's port is listening here. */
  readonly portOpen: boolean;
  /** The active revision's runtime is serving here. */
  readonly activeServing: boolean;
  /** The active revision's build is kept here, so it can be started again. */
  readonly activeBuilt: boolean;
  /** The steps this pass already took: each is taken at most once a pass. */
  readonly taken: ReadonlySet<DeploymentStep['kind']>;
  readonly now: string;
};

/** What the listener does next for a deployment; `rest` until its events or its machine change. */
export type DeploymentStep =
  | { readonly kind: 'rest' }
  | { readonly kind: 'tear_down' }
  | { readonly kind: 'provision' }
  | { readonly kind: 'open_port'; readonly port: number }
  | { readonly kind: 'skip_superseded'; readonly commands: readonly ListenerCommand[] }
  | { readonly kind: 'restart_active'; readonly revision: RevisionState }
  | { readonly kind: 'roll_out'; readonly revision: RevisionState };

const REST: DeploymentStep = { kind: 'rest' };

/** Revisions waiting for work, the latest request last. */
export function pendingRevisions(state: DeploymentState): RevisionState[] {
  return state.revisions
    .filter((revision) => !TERMINAL_REVISION_STATUSES.has(revision.status))
    .sort((a, b) => a.requested_at_position - b.requested_at_position);
}

/** The revision to work on: the one requested last. */
export function nextRequested(state: DeploymentState): RevisionState | undefined {
  return pendingRevisions(state).at(-1);
}

/** The listener's report that a revision moved to `status` (with why, where it says). */
export function revisionStatus(
  revisionId: string,
  status: RevisionStatus,
  now: string,
  message: string | null = null,
): ListenerCommand {
  return { kind: 'revision_status', revision_id: revisionId, status, message, now };
}

export function supersededStatus(revisionId: string, newer: string, now: string): ListenerCommand {
  return revisionStatus(revisionId, 'SKIPPED', now, `superseded by revision ${newer}`);
}

/**
 * The deployment's next step, in this order: its tear-down once deleted, its database and port
 * once created, then (unless a rollout runs) the older requests skipped, the live revision
 * serving again, and the latest request rolled out (see revision-workflow.ts).
 */
export function nextDeploymentStep(state: DeploymentState, facts: DeploymentFacts): DeploymentStep {
  const step = stepOf(state, facts);
  return facts.taken.has(step.kind) ? REST : step;
}

function stepOf(state: DeploymentState, facts: DeploymentFacts): DeploymentStep {
  if (!state.exists || state.deleted || !isBuildable(state.source)) return REST;
  if (state.status === 'AWAITING_DELETE') return { kind: 'tear_down' };
  if (state.status === 'AWAITING_DATABASE') return { kind: 'provision' };
  if (state.port !== null && !facts.portOpen) return { kind: 'open_port', port: state.port };
  if (facts.rolling) return REST;
  const next = nextRequested(state);
  const older = pendingRevisions(state).filter((revision) => revision !== next);
  if (next && older.length > 0) {
    const commands = older.map((revision) =>
      supersededStatus(revision.revision_id, next.revision_id, facts.now),
    );
    return { kind: 'skip_superseded', commands };
  }
  const active = state.active_revision_id
    ? findRevision(state, state.active_revision_id)
    : undefined;
  if (active && !facts.activeServing && facts.activeBuilt && !facts.taken.has('restart_active')) {
    return { kind: 'restart_active', revision: active };
  }
  return next ? { kind: 'roll_out', revision: next } : REST;
}
