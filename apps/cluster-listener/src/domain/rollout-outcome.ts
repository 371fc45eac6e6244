/** A condition of a Deployment, as its status reports it. */
export interface WorkloadCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
}

/** Why a container of the new pods is not running, as their statuses report it. */
export interface WaitingContainer {
  readonly container: string;
  readonly reason: string;
  readonly message?: string;
  /** How many times it has restarted. */
  readonly restarts: number;
}

/** One of the runtime's Deployments, as the cluster reports it after an apply. */
export interface WorkloadStatus {
  readonly name: string;
  /** `metadata.generation`, and the generation its status describes. */
  readonly generation: number;
  readonly observedGeneration: number;
  readonly replicas: number;
  readonly updatedReplicas: number;
  readonly availableReplicas: number;
  /** Pods of the old revision still there. */
  readonly unavailableReplicas: number;
  readonly conditions: readonly WorkloadCondition[];
  /** The containers of the new revision's pods that are waiting. */
  readonly waiting: readonly WaitingContainer[];
}

export type RolloutOutcome =
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'available' }
  | { readonly kind: 'failed'; readonly reason: string };

/** Reasons a container never gets going that waiting longer does not mend. */
const IMAGE_FAILURES = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName']);
const CRASH_RESTARTS = 3;

function failureOf(workload: WorkloadStatus): string | undefined {
  const deadline = workload.conditions.find(
    (condition) =>
      condition.type === 'Progressing' && condition.reason === 'ProgressDeadlineExceeded',
  );
  if (deadline)
    return `${workload.name}: progress deadline exceeded (${deadline.message ?? 'no message'})`;
  for (const waiting of workload.waiting) {
    const detail = waiting.message ? `: ${waiting.message}` : '';
    if (IMAGE_FAILURES.has(waiting.reason)) {
      return `${workload.name}: the image of container ${waiting.container} cannot be pulled (${waiting.reason}${detail})`;
    }
    if (waiting.reason === 'CrashLoopBackOff' && waiting.restarts >= CRASH_RESTARTS) {
      return `${workload.name}: container ${waiting.container} keeps crashing (${waiting.restarts} restarts${detail})`;
    }
    if (waiting.reason === 'CreateContainerConfigError') {
      return `${workload.name}: container ${waiting.container} cannot be created${detail}`;
    }
  }
  return undefined;
}

function isAvailable(workload: WorkloadStatus): boolean {
  return (
    workload.observedGeneration >= workload.generation &&
    workload.updatedReplicas === workload.replicas &&
    workload.availableReplicas >= workload.updatedReplicas &&
    workload.unavailableReplicas === 0
  );
}

/**
 * Whether a revision's rollout is done: available when every Deployment's new pods are (and the
 * old ones gone), failed as soon as one shows a failure that waiting does not mend; the previous
 * revision's pods keep serving meanwhile (maxUnavailable 0).
 */
export function rolloutOutcome(workloads: readonly WorkloadStatus[]): RolloutOutcome {
  for (const workload of workloads) {
    const reason = failureOf(workload);
    if (reason) return { kind: 'failed', reason };
  }
  return workloads.every(isAvailable) ? { kind: 'available' } : { kind: 'in_progress' };
}
