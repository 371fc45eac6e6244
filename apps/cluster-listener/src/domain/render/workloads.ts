import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { ScaledResources } from '../resource-defaults.js';
import { runtimePodTemplate, type RuntimeRole } from './pod-template.js';
import { metadataOf, selectorLabels, type RenderContext } from './render-context.js';

/** Runs whose wait in the queue makes one more worker worth it, per worker (see docs/kubernetes.md). */
export const QUEUE_DEPTH_PER_WORKER = 10;
const CPU_UTILIZATION_TARGET = 80;

/** The runtime's pods of one role: replaced one at a time, a new one ready before an old one goes. */
export function runtimeDeployment(context: RenderContext, role: RuntimeRole): Deployment {
  const resources: ScaledResources = context.resources[role];
  return new Deployment({
    metadata: metadataOf(context, context.names[role], role),
    spec: {
      // An autoscaler owns the count when the role can grow; applying one here would undo it.
      ...(resources.maxReplicas > resources.minReplicas ? {} : { replicas: resources.minReplicas }),
      selector: { matchLabels: selectorLabels(context, role) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      progressDeadlineSeconds: 600,
      template: runtimePodTemplate(context, role, resources),
    },
  });
}

/**
 * Scaling of one role up to its `max_scale`: the API servers on CPU, the queue's workers on the
 * runs waiting in the queue (`berth_run_queue_depth` of `/metrics`, an external metric that a
 * metrics adapter serves). None when the role cannot grow.
 */
export function runtimeAutoscaler(
  context: RenderContext,
  role: RuntimeRole,
): HorizontalPodAutoscaler | undefined {
  const resources = context.resources[role];
  if (resources.maxReplicas <= resources.minReplicas) return undefined;
  const name = context.names[role];
  return new HorizontalPodAutoscaler({
    metadata: metadataOf(context, name, role),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: Math.max(1, resources.minReplicas),
      maxReplicas: resources.maxReplicas,
      metrics: [role === 'api' ? cpuMetric() : queueDepthMetric(context)],
    },
  });
}

function cpuMetric() {
  return {
    type: 'Resource',
    resource: {
      name: 'cpu',
      target: { type: 'Utilization', averageUtilization: CPU_UTILIZATION_TARGET },
    },
  };
}

/**
 * The queue's depth, selected by the deployment: every runtime pod of it reports the same queue.
 * The label is the pod's `berth.dev/deployment-id` as Prometheus records it (a metric's label
 * names have no `.` or `/`), which is what a metrics adapter matches the selector against.
 */
export const QUEUE_METRIC_DEPLOYMENT_LABEL = 'berth_dev_deployment_id';

function queueDepthMetric(context: RenderContext) {
  return {
    type: 'External',
    external: {
      metric: {
        name: 'berth_run_queue_depth',
        selector: {
          matchLabels: { [QUEUE_METRIC_DEPLOYMENT_LABEL]: context.revision.deploymentId },
        },
      },
      target: { type: 'AverageValue', averageValue: String(QUEUE_DEPTH_PER_WORKER) },
    },
  };
}
