import type { Logger } from '#libs/logging';
import type { ListenerPlacement } from '../domain/cluster-revision-of.js';
import type { KubeCluster } from '../kube/kube-cluster.js';
import type { ListenerClient } from '../protocol/listener-client.js';
import type { RetryDelays } from './retrying.js';
import type { RevisionDatabases } from './revision-databases.js';

/** What the listener's workers work with, set up once at its start. */
export interface ListenerDeps {
  readonly cluster: KubeCluster;
  readonly client: ListenerClient;
  readonly listenerId: string;
  /** The private half of the key the deployments' secrets are sealed for. */
  readonly privateKey: string;
  readonly placement: ListenerPlacement;
  readonly databases: RevisionDatabases;
  readonly log: Logger;
  /** How often a rollout's Deployments and pods are read. */
  readonly followEveryMs: number;
  /** The first and the longest wait before a failed step is tried again. */
  readonly retryMs: RetryDelays;
}
