import type { AssignedDeployment } from '#libs/listener-protocol';

/**
 * What the listener does for one deployment:
 * - `roll_out`: a revision the control plane asks for: apply it, report `DEPLOYING`, follow its
 *   rollout, report `DEPLOYED` or `DEPLOY_FAILED`;
 * - `keep_applied`: the live revision: apply it (after the listener's restart, or to roll back
 *   from a revision that failed), report nothing;
 * - `tear_down`: a deleted deployment: delete its objects, report `TORN_DOWN`.
 */
export type DeploymentTask =
  | { readonly kind: 'roll_out'; readonly revisionId: string }
  | { readonly kind: 'keep_applied'; readonly revisionId: string }
  | { readonly kind: 'tear_down' };

/** Statuses of a revision the control plane has asked for and not seen end. */
const REQUESTED = new Set(['QUEUED', 'AWAITING_DEPLOY', 'DEPLOYING']);

/** What a deployment's listener is to do for it; undefined when nothing (a revision that ended). */
export function taskOf(assigned: AssignedDeployment): DeploymentTask | undefined {
  if (assigned.action === 'tear_down') return { kind: 'tear_down' };
  const revision = assigned.revision;
  if (!revision) return undefined;
  if (REQUESTED.has(revision.status)) return { kind: 'roll_out', revisionId: revision.revision_id };
  if (revision.status === 'DEPLOYED') {
    return { kind: 'keep_applied', revisionId: revision.revision_id };
  }
  return undefined;
}

/** What the listener's worker for one deployment remembers since the listener started. */
export interface WorkerMemory {
  /** The task under way, if any. */
  readonly running?: DeploymentTask;
  /** The last task that ended with its report accepted. */
  readonly finished?: DeploymentTask;
  /** The revision whose objects this process applied last. */
  readonly applied?: string;
}

export const sameTask = (a: DeploymentTask | undefined, b: DeploymentTask | undefined): boolean =>
  a !== undefined &&
  b !== undefined &&
  a.kind === b.kind &&
  (a.kind === 'tear_down' || a.revisionId === (b as { revisionId: string }).revisionId);

/**
 * The task to start for a new assignment (the running one, if any, is given up for it), or
 * undefined to go on as things are: a task under way or ended is never started again, and the
 * live revision is applied once per process. So a poll answered again, or before the report of a
 * task landed, applies nothing twice; a restart applies the live revision once, which server-side
 * apply makes a no-op when nothing changed.
 */
export function nextTask(
  assigned: AssignedDeployment,
  memory: WorkerMemory,
): DeploymentTask | undefined {
  const wanted = taskOf(assigned);
  if (!wanted) return undefined;
  if (sameTask(wanted, memory.running) || sameTask(wanted, memory.finished)) return undefined;
  if (wanted.kind === 'keep_applied' && memory.applied === wanted.revisionId) return undefined;
  return wanted;
}
