import { batchDecider, conflict, notFound, type Decider } from '#libs/domain';
import { deploymentDecider } from './deployment.decider.js';
import type { DeploymentEvent } from './deployment.events.js';
import { NEXT_STATUSES, type ListenerCommand } from './deployment-listener.decide.js';
import { findRevision, type DeploymentState, type RevisionState } from './deployment.state.js';
import type { RevisionStatus } from './deployment.types.js';
import {
  nextRequested,
  pendingRevisions,
  revisionStatus,
  supersededStatus,
} from './deployment-workflow.js';

/**
 * What a cluster listener is to do for one of its deployments: apply a revision (the one
 * requested last, else the live one, which it keeps applied), or tear everything down.
 */
export type ClusterAssignment =
  | { readonly action: 'apply'; readonly revision: RevisionState }
  | { readonly action: 'tear_down' }
  | { readonly action: 'none' };

export function clusterAssignmentOf(state: DeploymentState): ClusterAssignment {
  if (!state.exists || state.deleted) return { action: 'none' };
  if (state.status === 'AWAITING_DELETE') return { action: 'tear_down' };
  const revision =
    nextRequested(state) ??
    (state.active_revision_id ? findRevision(state, state.active_revision_id) : undefined);
  return revision ? { action: 'apply', revision } : { action: 'none' };
}

/** Statuses a revision has only once a cluster listener took it: its objects may be there. */
const APPLIED_STATUSES: ReadonlySet<RevisionStatus> = new Set([
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'DEPLOYED',
  'DEPLOY_FAILED',
  'INTERRUPTED',
]);

/**
 * Whether the deployment's cluster listener ever took one of its revisions: then its objects may
 * be in the cluster, and only the listener's report of their tear-down ends the deployment.
 */
export function clusterHoldsObjects(state: DeploymentState): boolean {
  return state.revisions.some((revision) => APPLIED_STATUSES.has(revision.status));
}

/** What a cluster listener reports of a deployment. */
export type ClusterReport =
  | {
      readonly kind: 'revision';
      readonly revision_id: string;
      readonly status: 'DEPLOYING' | 'DEPLOYED' | 'DEPLOY_FAILED';
      readonly message: string | null;
    }
  | { readonly kind: 'torn_down' };

/** The shortest way through the revision status table from one status to another. */
export function statusPath(from: RevisionStatus, to: RevisionStatus): RevisionStatus[] | undefined {
  const previous = new Map<RevisionStatus, RevisionStatus>();
  const queue: RevisionStatus[] = [from];
  for (let at = queue.shift(); at !== undefined; at = queue.shift()) {
    if (at === to) {
      const path: RevisionStatus[] = [];
      for (let step: RevisionStatus | undefined = to; step !== from; step = previous.get(step)) {
        if (step === undefined) break;
        path.unshift(step);
      }
      return path;
    }
    for (const next of NEXT_STATUSES[at]) {
      if (next === from || previous.has(next)) continue;
      previous.set(next, at);
      queue.push(next);
    }
  }
  return undefined;
}

/**
 * The commands a cluster listener's report makes: a revision taken to the reported status
 * through the statuses between (a `QUEUED` revision the listener deploys passes
 * `AWAITING_DEPLOY`), once `DEPLOYED` made live and the older requests skipped; the deployment
 * deleted once its objects are gone. A report of the status a revision has is a no-op, so a
 * listener may report again after a restart.
 */
export function clusterReportCommands(
  state: DeploymentState,
  report: ClusterReport,
  now: string,
): ListenerCommand[] {
  if (report.kind === 'torn_down') {
    if (state.status !== 'AWAITING_DELETE' && !state.deleted) {
      throw conflict('The deployment is not being deleted: there is nothing to tear down');
    }
    return [{ kind: 'torn_down', now }];
  }
  const revision = findRevision(state, report.revision_id);
  if (!revision) throw notFound(`Revision ${report.revision_id} not found`);
  if (revision.status === report.status) return [];
  const path = statusPath(revision.status, report.status);
  if (!path) {
    throw conflict(
      `Revision ${report.revision_id} cannot go from ${revision.status} to ${report.status}`,
    );
  }
  const steps = path.map((status) =>
    revisionStatus(
      revision.revision_id,
      status,
      now,
      status === report.status ? report.message : null,
    ),
  );
  if (report.status !== 'DEPLOYED') return steps;
  const older = pendingRevisions(state).filter(
    (pending) => pending.requested_at_position < revision.requested_at_position,
  );
  return [
    ...steps,
    { kind: 'activate', revision_id: revision.revision_id, now },
    ...older.map((pending) => supersededOf(pending, revision.revision_id, now)),
  ];
}

/** An older request a newer revision replaced: skipped, or interrupted once it was deploying. */
function supersededOf(pending: RevisionState, newer: string, now: string): ListenerCommand {
  if (NEXT_STATUSES[pending.status].includes('SKIPPED')) {
    return supersededStatus(pending.revision_id, newer, now);
  }
  return revisionStatus(pending.revision_id, 'INTERRUPTED', now, `superseded by revision ${newer}`);
}

/** A cluster listener's report on one of its deployments, as a command. */
export type ClusterReportCommand = {
  readonly deployment_id: string;
  readonly report: ClusterReport;
  readonly tenant_id: string;
  readonly listener_id: string;
  readonly now: string;
};

const recorder = batchDecider(deploymentDecider);

/**
 * The deployment as its cluster listener reports on it: only a deployment of the listener's
 * tenant that names it; the report's commands decided on the state they land on, so a report that
 * raced another write is decided again on what that write left.
 */
export const clusterReportDecider: Decider<DeploymentState, ClusterReportCommand, DeploymentEvent> =
  {
    initialState: deploymentDecider.initialState,
    evolve: (state, event) => deploymentDecider.evolve(state, event),
    decide(command, state) {
      const owned =
        state.exists &&
        state.tenant_id === command.tenant_id &&
        state.source_config.listener_id === command.listener_id;
      if (!owned) throw notFound(`Deployment ${command.deployment_id} not found`);
      return recorder.decide(clusterReportCommands(state, command.report, command.now), state);
    },
  };
