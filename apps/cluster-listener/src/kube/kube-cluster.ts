import {
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  type KubernetesObject,
  type V1Deployment,
  type V1Pod,
  type V1Secret,
} from '@kubernetes/client-node';
import {
  API_VERSION_OF,
  TORN_DOWN_KINDS,
  type ObjectRef,
  type ObservedObject,
  type TornDownKind,
} from '../domain/apply-plan.js';
import {
  DEPLOYMENT_LABEL,
  FIELD_MANAGER,
  REVISION_ANNOTATION,
} from '../domain/render/render-context.js';
import type { RenderedObject } from '../domain/render/render-revision.js';
import type { WorkloadStatus } from '../domain/rollout-outcome.js';
import { isNotFound, kubeApiErrorOf } from './kube-api-error.js';
import { workloadStatusOf } from './workload-status-of.js';

/** Calls the API, its errors made KubeApiErrors naming what was being done. */
async function calling<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw kubeApiErrorOf(error, doing);
  }
}

const selectorOf = (labels: Readonly<Record<string, string>>): string =>
  Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');

/**
 * The listener's hands in the cluster: server-side apply under Berth's field manager, listing a
 * deployment's objects by its label, deletes, and the Deployments' and their pods' status. It
 * decides nothing: what to apply, prune and wait for comes from the pure apply plan.
 */
export class KubeCluster {
  private constructor(private readonly api: KubernetesObjectApi) {}

  /**
   * The cluster of the kubeconfig at `kubeconfigPath`; without one, as kubectl finds it: KUBECONFIG,
   * ~/.kube/config, or the pod's service account when running in a cluster.
   */
  static connect(kubeconfigPath?: string): KubeCluster {
    const config = new KubeConfig();
    if (kubeconfigPath) config.loadFromFile(kubeconfigPath);
    else config.loadFromDefault();
    return new KubeCluster(KubernetesObjectApi.makeApiClient(config));
  }

  /** Server-side applies each object in order; unchanged ones are no-ops. */
  async apply(objects: readonly RenderedObject[]): Promise<void> {
    for (const object of objects) {
      await calling(`applying ${object.kind}/${object.metadata?.name ?? ''}`, () =>
        this.api.patch(
          object.toJSON() as KubernetesObject,
          undefined,
          undefined,
          FIELD_MANAGER,
          true,
          PatchStrategy.ServerSideApply,
        ),
      );
    }
  }

  /** Every object of the deployment in the namespace, of the kinds a tear-down deletes. */
  async observe(namespace: string, deploymentId: string): Promise<ObservedObject[]> {
    const observed: ObservedObject[] = [];
    for (const kind of TORN_DOWN_KINDS) {
      const list = await calling(`listing ${kind}s of deployment ${deploymentId}`, () =>
        this.api.list(
          API_VERSION_OF[kind],
          kind,
          namespace,
          undefined,
          undefined,
          undefined,
          undefined,
          selectorOf({ [DEPLOYMENT_LABEL]: deploymentId }),
        ),
      );
      for (const item of list.items) {
        observed.push({
          kind,
          name: item.metadata?.name ?? '',
          revisionId: item.metadata?.annotations?.[REVISION_ANNOTATION],
        });
      }
    }
    return observed;
  }

  /** Deletes the objects (their pods and replica sets after them); one already gone is fine. */
  async remove(namespace: string, refs: readonly ObjectRef<TornDownKind>[]): Promise<void> {
    for (const { kind, name } of refs) {
      const spec = { apiVersion: API_VERSION_OF[kind], kind, metadata: { name, namespace } };
      await calling(`deleting ${kind}/${name}`, () =>
        this.api.delete(spec, undefined, undefined, undefined, undefined, 'Background'),
      ).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
  }

  /** The Deployments as their status reports them, with their pods of `revisionId`. */
  async workloads(
    namespace: string,
    deployments: readonly ObjectRef[],
    revisionId: string,
  ): Promise<WorkloadStatus[]> {
    const statuses: WorkloadStatus[] = [];
    for (const { name } of deployments) {
      const deployment = await calling(`reading Deployment/${name}`, () =>
        this.api.read<V1Deployment>({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name, namespace },
        }),
      );
      const pods = await calling(`listing the pods of Deployment/${name}`, () =>
        this.api.list<V1Pod>(
          'v1',
          'Pod',
          namespace,
          undefined,
          undefined,
          undefined,
          undefined,
          selectorOf(deployment.spec?.selector.matchLabels ?? {}),
        ),
      );
      statuses.push(workloadStatusOf(deployment, pods.items, revisionId));
    }
    return statuses;
  }

  /** A Secret's values, decoded; undefined when there is no such Secret. */
  async secretValues(
    namespace: string,
    name: string,
  ): Promise<Readonly<Record<string, string>> | undefined> {
    const secret = await calling(`reading Secret/${name}`, () =>
      this.api.read<V1Secret>({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace } }),
    ).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    if (!secret) return undefined;
    return Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value, 'base64').toString('utf8'),
      ]),
    );
  }

  /** Makes or updates a Secret of the listener's own (server-side apply, `stringData`). */
  async putSecret(
    namespace: string,
    name: string,
    values: Readonly<Record<string, string>>,
  ): Promise<void> {
    const secret: V1Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels: { 'app.kubernetes.io/managed-by': FIELD_MANAGER } },
      type: 'Opaque',
      stringData: { ...values },
    };
    await calling(`writing Secret/${name}`, () =>
      this.api.patch(
        secret,
        undefined,
        undefined,
        FIELD_MANAGER,
        true,
        PatchStrategy.ServerSideApply,
      ),
    );
  }
}
