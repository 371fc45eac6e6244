/**
 * A deployment as the control plane assigns it to this listener: what
 * `GET /v2/listeners/{id}/assignments` answers (see docs/kubernetes.md).
 */
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
  readonly env: Readonly<Record<string, string>>;
  /** `[{name, value}]` as JSON, sealed for this listener's key and this revision. */
  readonly sealed_secrets: string;
}

export interface ListenerAssignments {
  readonly listener_id: string;
  readonly etag: string;
  readonly deployments: readonly AssignedDeployment[];
}

/** What the listener tells the control plane of a revision, or of a tear-down. */
export interface ListenerReport {
  readonly deployment_id: string;
  readonly revision_id?: string;
  readonly status: 'DEPLOYING' | 'DEPLOYED' | 'DEPLOY_FAILED' | 'TORN_DOWN';
  readonly message?: string;
}

/** The longest `message` a report may carry. */
export const REPORT_MESSAGE_MAX = 2000;
