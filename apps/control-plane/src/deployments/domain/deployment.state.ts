import type { SealedSecret } from '../../secrets/sealed-secret.js';
import type { RevisionCreatedData } from './deployment.events.js';
import type {
  CommitsSince,
  DeploymentSource,
  DeploymentStatus,
  RevisionStatus,
  SecretReference,
  SourceConfig,
  SourceRevisionConfig,
} from './deployment.types.js';

export type RevisionState = RevisionCreatedData & {
  status: RevisionStatus;
  status_message: string | null;
  updated_at: string;
  /** The stream position of the latest request to deploy it (its creation or a redeploy). */
  requested_at_position: number;
  /** A git revision's commits since the revision before it, as its build found them. */
  commits_since?: CommitsSince | null;
};

export type DeploymentState = {
  exists: boolean;
  deleted: boolean;
  deployment_id: string | null;
  tenant_id: string | null;
  name: string;
  source: DeploymentSource;
  source_config: SourceConfig;
  source_revision_config: SourceRevisionConfig;
  secrets: SealedSecret[];
  secret_references: SecretReference[] | null;
  tracing_project_id: string | null;
  status: DeploymentStatus;
  created_at: string;
  updated_at: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  /** Oldest first. */
  revisions: RevisionState[];
  uploads: { object_path: string; expires_at: string }[];
  port: number | null;
  database: string | null;
  /** How many events the stream holds: the next event's position. */
  version: number;
};

export const TERMINAL_REVISION_STATUSES: ReadonlySet<RevisionStatus> = new Set([
  'DEPLOYED',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
]);

export function findRevision(
  state: DeploymentState,
  revisionId: string,
): RevisionState | undefined {
  return state.revisions.find((revision) => revision.revision_id === revisionId);
}
