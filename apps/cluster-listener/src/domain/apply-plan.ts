import type { RenderedObject } from './render/render-revision.js';

/** The kinds a deployment's objects are; what prune looks at, and nothing else. */
export const MANAGED_KINDS = [
  'Secret',
  'Service',
  'StatefulSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'NetworkPolicy',
  'PodDisruptionBudget',
] as const;
export type ManagedKind = (typeof MANAGED_KINDS)[number];

/** What a tear-down deletes besides: the database's volume claims, which no revision prunes. */
export const TORN_DOWN_KINDS = [...MANAGED_KINDS, 'PersistentVolumeClaim'] as const;
export type TornDownKind = (typeof TORN_DOWN_KINDS)[number];

/** The API group and version each kind is applied, listed and deleted through. */
export const API_VERSION_OF: Readonly<Record<TornDownKind, string>> = {
  Secret: 'v1',
  Service: 'v1',
  PersistentVolumeClaim: 'v1',
  StatefulSet: 'apps/v1',
  Deployment: 'apps/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  NetworkPolicy: 'networking.k8s.io/v1',
  PodDisruptionBudget: 'policy/v1',
};

/** An object of the deployment as the cluster reports it (listed by the deployment's label). */
export interface ObservedObject {
  readonly kind: string;
  readonly name: string;
  /** The revision it was applied for (`berth.dev/revision-id`). */
  readonly revisionId: string | undefined;
}

export interface ObjectRef<Kind extends string = ManagedKind> {
  readonly kind: Kind;
  readonly name: string;
}

/** What to do in the cluster for one revision. */
export interface ApplyPlan {
  /** Server-side applied, in this order. */
  readonly apply: readonly RenderedObject[];
  /** The deployment's objects that its new rendering no longer has, deleted after the applies. */
  readonly prune: readonly ObjectRef[];
  /** The workloads whose new pods must be available before the revision is `DEPLOYED`. */
  readonly waitFor: readonly ObjectRef[];
}

const isManaged = (kind: string): kind is ManagedKind =>
  (MANAGED_KINDS as readonly string[]).includes(kind);
const isTornDown = (kind: string): kind is TornDownKind =>
  (TORN_DOWN_KINDS as readonly string[]).includes(kind);

const keyOf = (kind: string, name: string): string => `${kind}/${name}`;

/**
 * The plan for a revision: every rendered object applied (server-side apply makes the unchanged
 * ones no-ops, so a revision applied again, after a restart of the listener, changes nothing),
 * what the deployment had and no longer renders pruned, and the runtime's Deployments waited for.
 */
export function applyPlan(
  rendered: readonly RenderedObject[],
  observed: readonly ObservedObject[],
): ApplyPlan {
  const kept = new Set(rendered.map((object) => keyOf(object.kind, object.metadata?.name ?? '')));
  const prune = observed
    .filter((object) => isManaged(object.kind) && !kept.has(keyOf(object.kind, object.name)))
    .map((object) => ({ kind: object.kind as ManagedKind, name: object.name }));
  const waitFor = rendered
    .filter((object) => object.kind === 'Deployment')
    .map((object) => ({ kind: 'Deployment' as const, name: object.metadata?.name ?? '' }));
  return { apply: rendered, prune, waitFor };
}

/**
 * Everything of the deployment the cluster holds, deleted when the deployment is: its database's
 * volume claims too, as the local listener drops a deleted deployment's database.
 */
export function tearDownPlan(
  observed: readonly ObservedObject[],
): readonly ObjectRef<TornDownKind>[] {
  return observed
    .filter((object) => isTornDown(object.kind))
    .map((object) => ({ kind: object.kind as TornDownKind, name: object.name }));
}
