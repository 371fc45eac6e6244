import type { SealedSecret } from '../../secrets/sealed-secret.js';
import type {
  CommitsSince,
  DeploymentSource,
  DeploymentStatus,
  RevisionStatus,
  SecretReference,
  SourceConfig,
  SourceRevisionConfig,
} from './deployment.types.js';
import type { ResourceSpec } from '#libs/resource-spec';

export type RevisionTrigger = 'create' | 'patch' | 'push';

export type RevisionCreatedData = {
  revision_id: string;
  source: DeploymentSource;
  source_revision_config: SourceRevisionConfig;
  resource_spec: ResourceSpec | null;
  secrets: SealedSecret[];
  /** Names of the secrets this revision added, changed or removed, for the audit history. */
  secrets_changed: string[];
  trigger: RevisionTrigger;
  created_at: string;
  /**
   * The SHA-256 of the uploaded tarball the revision is built from, checked before every build;
   * null without one. Revisions recorded before it was kept have no such field.
   */
  source_tarball_sha256: string | null;
};

export type DeploymentEvent =
  | {
      readonly type: 'DeploymentCreated';
      readonly data: {
        deployment_id: string;
        tenant_id: string;
        name: string;
        source: DeploymentSource;
        source_config: SourceConfig;
        source_revision_config: SourceRevisionConfig;
        secrets: SealedSecret[];
        secret_references: SecretReference[] | null;
        tracing_project_id: string;
        created_at: string;
      };
    }
  | {
      /** Fields that apply without a new revision; only the changed ones, with their new value. */
      readonly type: 'DeploymentConfigChanged';
      readonly data: {
        source_config: Partial<SourceConfig>;
        secret_references?: SecretReference[] | null;
        updated_at: string;
      };
    }
  | { readonly type: 'RevisionCreated'; readonly data: RevisionCreatedData }
  | {
      readonly type: 'UploadUrlIssued';
      readonly data: { object_path: string; expires_at: string; issued_at: string };
    }
  | {
      readonly type: 'DeploymentStatusChanged';
      readonly data: { status: DeploymentStatus; at: string };
    }
  | {
      readonly type: 'DeploymentUrlAssigned';
      readonly data: { custom_url: string; port: number; database: string; at: string };
    }
  | {
      readonly type: 'RevisionStatusChanged';
      readonly data: {
        revision_id: string;
        status: RevisionStatus;
        message: string | null;
        at: string;
      };
    }
  | {
      readonly type: 'RevisionSourceResolved';
      readonly data: {
        revision_id: string;
        repo_commit_sha: string;
        /** Absent from revisions built before commits were kept. */
        commits_since?: CommitsSince | null;
        at: string;
      };
    }
  | {
      readonly type: 'RevisionActivated';
      readonly data: { revision_id: string; previous_revision_id: string | null; at: string };
    }
  | {
      readonly type: 'RevisionRedeployRequested';
      readonly data: { revision_id: string; at: string };
    }
  | { readonly type: 'DeploymentDeleteRequested'; readonly data: { at: string } }
  | {
      /** Its tear-down failed and is being tried again: why, on its latest revision's status. */
      readonly type: 'DeploymentDeletionStalled';
      readonly data: { revision_id: string | null; message: string; at: string };
    }
  | { readonly type: 'DeploymentDeleted'; readonly data: { at: string } };

export type DeploymentEventType = DeploymentEvent['type'];

export const DEPLOYMENT_STREAM_PREFIX = 'deployment-';
export const deploymentStream = (deploymentId: string): string =>
  `${DEPLOYMENT_STREAM_PREFIX}${deploymentId}`;
