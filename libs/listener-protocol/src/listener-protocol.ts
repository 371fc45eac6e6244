/**
 * The protocol between the control plane and a cluster listener (docs/kubernetes.md): what
 * `GET /v2/listeners/{id}/assignments` answers and `POST /v2/listeners/{id}/reports` takes.
 */

/** One deployment as its cluster listener is told it. */
export interface AssignedDeployment {
  readonly deployment_id: string;
  readonly name: string;
  readonly namespace: string | null;
  readonly action: 'apply' | 'tear_down';
  readonly revision: AssignedRevision | null;
}

export interface AssignedRevision {
  readonly revision_id: string;
  readonly status: string;
  readonly image_uri: string | null;
  readonly resource_spec: unknown;
  readonly secret_references: unknown;
  /** Plain settings of the runtime: who may call it, where it reports its runs. */
  readonly env: Readonly<Record<string, string>>;
  /** The revision's secrets (`[{name, value}]` as JSON), sealed for the listener's key. */
  readonly sealed_secrets: string;
}

export interface ListenerAssignments {
  readonly listener_id: string;
  /** Changes whenever one of the deployments does: `after` of the next poll. */
  readonly etag: string;
  readonly deployments: readonly AssignedDeployment[];
}

export const REPORTED_STATUSES = ['DEPLOYING', 'DEPLOYED', 'DEPLOY_FAILED', 'TORN_DOWN'] as const;
export type ReportedStatus = (typeof REPORTED_STATUSES)[number];

/** The longest `message` a report may carry. */
export const REPORT_MESSAGE_MAX = 2000;

/** How a deployment's revision, or its tear-down, went. */
export interface ListenerReport {
  readonly deployment_id: string;
  /** Not for `TORN_DOWN`. */
  readonly revision_id?: string;
  readonly status: ReportedStatus;
  /** Why, for `DEPLOY_FAILED`: shown as the revision's status message. */
  readonly message?: string;
}

/** What a deployment's secrets are sealed under: they open for that listener and revision only. */
export const listenerSealingContext = (
  listenerId: string,
  deploymentId: string,
  revisionId: string,
): string => `berth-listener:${listenerId}:${deploymentId}:${revisionId}`;
