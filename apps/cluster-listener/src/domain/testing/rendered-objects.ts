import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { RenderedObject } from '../render/render-revision.js';

interface Kinds {
  Deployment: IDeployment;
  StatefulSet: IStatefulSet;
  HorizontalPodAutoscaler: IHorizontalPodAutoscaler;
  Secret: ISecret;
  NetworkPolicy: INetworkPolicy;
}

/** One rendered object as the JSON the cluster is sent, typed by its kind; throws when absent. */
export function renderedAs<Kind extends keyof Kinds>(
  objects: readonly RenderedObject[],
  kind: Kind,
  name: string,
): Kinds[Kind] {
  const found = objects.find((object) => object.kind === kind && object.metadata?.name === name);
  if (!found) {
    const names = objects.map((object) => `${object.kind}/${object.metadata?.name}`);
    throw new Error(`${kind}/${name} was not rendered; rendered: ${names.join(', ')}`);
  }
  return found.toJSON() as Kinds[Kind];
}

/** The pod spec of a workload; throws when it has none. */
export function podOf(workload: IDeployment | IStatefulSet): IPodSpec {
  const spec = workload.spec?.template.spec;
  if (!spec) throw new Error(`${workload.metadata?.name} has no pod spec`);
  return spec;
}

/** A container of a pod by name; throws when absent. */
export function containerOf(pod: IPodSpec, name: string): IContainer {
  const found = pod.containers.find((container) => container.name === name);
  if (!found) throw new Error(`no container ${name}`);
  return found;
}

/** A container's variables by name. */
export function envOf(container: IContainer): Record<string, IEnvVar> {
  return Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable]));
}
