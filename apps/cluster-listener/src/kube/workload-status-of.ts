import type { V1ContainerStatus, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { REVISION_ANNOTATION } from '../domain/render/render-context.js';
import type {
  WaitingContainer,
  WorkloadCondition,
  WorkloadStatus,
} from '../domain/rollout-outcome.js';

const CONDITION_STATUSES = new Set(['True', 'False', 'Unknown']);

function waitingOf(statuses: readonly V1ContainerStatus[] | undefined): WaitingContainer[] {
  return (statuses ?? []).flatMap((status) => {
    const waiting = status.state?.waiting;
    if (!waiting?.reason) return [];
    return [
      {
        container: status.name,
        reason: waiting.reason,
        ...(waiting.message ? { message: waiting.message } : {}),
        restarts: status.restartCount,
      },
    ];
  });
}

/**
 * One of the runtime's Deployments as the cluster reports it, with the waiting containers of the
 * pods of `revisionId` (the pods of the revision before are not this rollout's business).
 */
export function workloadStatusOf(
  deployment: V1Deployment,
  pods: readonly V1Pod[],
  revisionId: string,
): WorkloadStatus {
  const status = deployment.status;
  const conditions: WorkloadCondition[] = (status?.conditions ?? [])
    .filter((condition) => CONDITION_STATUSES.has(condition.status))
    .map((condition) => ({
      type: condition.type,
      status: condition.status as WorkloadCondition['status'],
      ...(condition.reason ? { reason: condition.reason } : {}),
      ...(condition.message ? { message: condition.message } : {}),
    }));
  const ofRevision = pods.filter(
    (pod) => pod.metadata?.annotations?.[REVISION_ANNOTATION] === revisionId,
  );
  return {
    name: deployment.metadata?.name ?? '',
    generation: deployment.metadata?.generation ?? 0,
    observedGeneration: status?.observedGeneration ?? 0,
    replicas: status?.replicas ?? 0,
    updatedReplicas: status?.updatedReplicas ?? 0,
    availableReplicas: status?.availableReplicas ?? 0,
    unavailableReplicas: status?.unavailableReplicas ?? 0,
    conditions,
    waiting: ofRevision.flatMap((pod) => [
      ...waitingOf(pod.status?.initContainerStatuses),
      ...waitingOf(pod.status?.containerStatuses),
    ]),
  };
}
