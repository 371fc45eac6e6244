import type { IObjectMeta } from '@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta';
import type { ClusterRevision } from '../cluster-revision.js';
import { baseNameOf, objectNames, type ObjectNames } from '../kube-names.js';
import { effectiveResources, type EffectiveResources } from '../resource-defaults.js';

/** The parts of a deployment, each selected by its own label. */
export type Component = 'api' | 'queue' | 'database';

export const COMPONENT_LABEL = 'berth.dev/component';
export const DEPLOYMENT_LABEL = 'berth.dev/deployment-id';
export const REVISION_ANNOTATION = 'berth.dev/revision-id';
/** The field manager of Berth's server-side applies, and the value of `managed-by`. */
export const FIELD_MANAGER = 'berth-listener';

/** What every object of one revision is rendered with. */
export interface RenderContext {
  readonly revision: ClusterRevision;
  readonly names: ObjectNames;
  readonly resources: EffectiveResources;
}

export function renderContextOf(revision: ClusterRevision): RenderContext {
  const base = baseNameOf(revision.deploymentName, revision.deploymentId);
  return {
    revision,
    names: objectNames(base),
    resources: effectiveResources(revision.resources),
  };
}

/** The labels that select a component's pods: the same for every revision of the deployment. */
export function selectorLabels(
  context: RenderContext,
  component: Component,
): Record<string, string> {
  return { [DEPLOYMENT_LABEL]: context.revision.deploymentId, [COMPONENT_LABEL]: component };
}

/** The spec's `labels` and `annotations` on every object, under Berth's own, which win. */
export function metadataOf(
  context: RenderContext,
  name: string,
  component?: Component,
): IObjectMeta {
  const { revision } = context;
  const spec = revision.resources;
  return {
    name,
    namespace: revision.namespace,
    labels: {
      ...(spec?.labels ?? {}),
      'app.kubernetes.io/name': 'berth-runtime',
      'app.kubernetes.io/instance': context.names.api,
      'app.kubernetes.io/managed-by': FIELD_MANAGER,
      [DEPLOYMENT_LABEL]: revision.deploymentId,
      ...(component ? { [COMPONENT_LABEL]: component } : {}),
    },
    annotations: { ...(spec?.annotations ?? {}), [REVISION_ANNOTATION]: revision.revisionId },
  };
}
