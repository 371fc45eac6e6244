import type { ListenerCommand } from './deployment-listener.decide.js';
import {
  nextRequested,
  revisionStatus as status,
  supersededStatus,
} from './deployment-workflow.js';
import { findRevision, type DeploymentState } from './deployment.state.js';
import type { CommitsSince, RevisionStatus } from './deployment.types.js';

/** What the listener knows of one revision's rollout beyond its events. */
export type RolloutFacts = {
  /** The revision's build is kept on this machine. */
  readonly built: boolean;
  /** The steps this rollout took so far, in order: none when it starts. */
  readonly taken: readonly RevisionStep['kind'][];
  readonly now: string;
};

/** A line for the revision's log, with the phase it belongs to. */
export type LogNote = { readonly phase: 'build' | 'deploy'; readonly line: string };

/**
 * A rollout's next step: `record` moves the revision's status before work begins (a restarted
 * control plane's half-done step begins again); `build`, `deploy` and `retire` are the work.
 */
export type RevisionStep =
  | { readonly kind: 'finish' }
  | {
      readonly kind: 'record';
      readonly commands: readonly ListenerCommand[];
      readonly note?: LogNote;
    }
  | { readonly kind: 'build' }
  | { readonly kind: 'deploy' }
  | { readonly kind: 'retire' };

/** How a build or a deploy ended, its reason already cleared of secrets. */
export type WorkResult =
  | { readonly ok: true; readonly commitSha?: string; readonly commitsSince?: CommitsSince | null }
  | { readonly ok: false; readonly reason: string };

const FINISH: RevisionStep = { kind: 'finish' };
const NO_LONGER_KEPT = 'its build is no longer kept; redeploy it to build it again';
const DEPLOY_AGAIN = 'the control plane stopped during the deploy; deploying again';

/** The statuses a rollout works on; the others are done, or not this listener's to start. */
const IN_PROGRESS = [
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
] as const;
type InProgress = (typeof IN_PROGRESS)[number];

const inProgress = (status: RevisionStatus): status is InProgress =>
  (IN_PROGRESS as readonly RevisionStatus[]).includes(status);

/** Where a rollout begins: from the revision's status as the log has it, this rollout's or not. */
function firstStep(revisionId: string, current: InProgress, facts: RolloutFacts): RevisionStep {
  const { built, now } = facts;
  switch (current) {
    case 'QUEUED':
      if (built) {
        const line = 'The build of this revision is kept: deploying it without rebuilding';
        return {
          kind: 'record',
          commands: [status(revisionId, 'AWAITING_DEPLOY', now)],
          note: { phase: 'build', line },
        };
      }
      return {
        kind: 'record',
        commands: [status(revisionId, 'AWAITING_BUILD', now), status(revisionId, 'BUILDING', now)],
      };
    case 'AWAITING_BUILD':
    case 'BUILDING': {
      const line = `the control plane stopped while this revision was ${current}; building it again`;
      return {
        kind: 'record',
        commands: [
          status(revisionId, 'AWAITING_BUILD', now, line),
          status(revisionId, 'BUILDING', now),
        ],
        note: { phase: 'build', line },
      };
    }
    case 'AWAITING_DEPLOY':
    case 'DEPLOYING':
      if (!built)
        return {
          kind: 'record',
          commands: [status(revisionId, 'DEPLOY_FAILED', now, NO_LONGER_KEPT)],
        };
      return {
        kind: 'record',
        commands: [status(revisionId, 'AWAITING_DEPLOY', now, DEPLOY_AGAIN)],
        note: { phase: 'deploy', line: DEPLOY_AGAIN },
      };
  }
}

/** The next step of the revision's rollout on this machine. */
export function nextRevisionStep(
  state: DeploymentState,
  revisionId: string,
  facts: RolloutFacts,
): RevisionStep {
  const revision = findRevision(state, revisionId);
  if (!revision) return FINISH;
  const { status: current } = revision;
  const { taken } = facts;
  if (current === 'DEPLOYED') {
    return taken.includes('deploy') && !taken.includes('retire') ? { kind: 'retire' } : FINISH;
  }
  if (!inProgress(current)) return FINISH;
  if (taken.length === 0) return firstStep(revisionId, current, facts);
  switch (current) {
    case 'BUILDING':
      return taken.includes('build') ? FINISH : { kind: 'build' };
    case 'AWAITING_DEPLOY':
      return { kind: 'record', commands: [status(revisionId, 'DEPLOYING', facts.now)] };
    case 'DEPLOYING':
      return taken.includes('deploy') ? FINISH : { kind: 'deploy' };
    case 'QUEUED':
    case 'AWAITING_BUILD':
      // Moved past by the first step: another writer moved it back, which is not this rollout's.
      return FINISH;
  }
}

/** What a build's or a deploy's end records, read against the deployment as it is then. */
export function outcomeOf(
  step: RevisionStep,
  result: WorkResult,
  state: DeploymentState,
  revisionId: string,
  now: string,
): ListenerCommand[] {
  if (step.kind === 'build') {
    if (!result.ok) return [status(revisionId, 'BUILD_FAILED', now, result.reason)];
    const resolved: ListenerCommand[] = result.commitSha
      ? [
          {
            kind: 'source_resolved',
            revision_id: revisionId,
            repo_commit_sha: result.commitSha,
            commits_since: result.commitsSince ?? null,
            now,
          },
        ]
      : [];
    const newer = nextRequested(state);
    if (newer && newer.revision_id !== revisionId) {
      return [...resolved, supersededStatus(revisionId, newer.revision_id, now)];
    }
    return [...resolved, status(revisionId, 'AWAITING_DEPLOY', now)];
  }
  if (step.kind === 'deploy') {
    if (!result.ok) return [status(revisionId, 'DEPLOY_FAILED', now, result.reason)];
    return [
      { kind: 'activate', revision_id: revisionId, now },
      status(revisionId, 'DEPLOYED', now),
    ];
  }
  return [];
}
