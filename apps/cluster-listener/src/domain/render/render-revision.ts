import type { ClusterRevision } from '../cluster-revision.js';
import { databaseService, databaseStatefulSet } from './database.js';
import {
  databaseNetworkPolicy,
  runtimeDisruptionBudget,
  runtimeNetworkPolicy,
  runtimeService,
} from './networking.js';
import { renderContextOf } from './render-context.js';
import { databaseCredentials, deploymentSecrets } from './secrets.js';
import { runtimeAutoscaler, runtimeDeployment } from './workloads.js';

/** A rendered Kubernetes object: a typed model that can check itself against the schema. */
export interface RenderedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  validate(): void;
  toJSON(): unknown;
}

/**
 * Every object of one revision, in the order they are applied: what others read first (secrets,
 * the database), then the workloads, then what routes to and scales them. The `cache_*` fields
 * render nothing: the runtime keeps no cache beside PostgreSQL.
 */
export function renderRevision(revision: ClusterRevision): RenderedObject[] {
  const context = renderContextOf(revision);
  const inCluster = revision.database.kind === 'in_cluster' ? revision.database : undefined;
  const objects: (RenderedObject | undefined)[] = [
    deploymentSecrets(context),
    databaseCredentials(context),
    ...(inCluster
      ? [
          databaseService(context),
          databaseStatefulSet(context, inCluster.image),
          databaseNetworkPolicy(context),
        ]
      : []),
    runtimeDeployment(context, 'api'),
    runtimeDeployment(context, 'queue'),
    runtimeService(context),
    runtimeNetworkPolicy(context),
    runtimeDisruptionBudget(context),
    runtimeAutoscaler(context, 'api'),
    runtimeAutoscaler(context, 'queue'),
  ];
  return objects.filter((object) => object !== undefined);
}
