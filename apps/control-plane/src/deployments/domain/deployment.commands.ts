import type { SealedSecret } from '../../secrets/sealed-secret.js';
import type { ListenerInfo } from '../../listeners/listener-info.js';
import { type SourceConfigInput, type SourceRevisionConfigInput } from './deployment-rules.js';
import {
  type CommitsSince,
  type DeploymentSource,
  type RevisionStatus,
  type SecretReference,
} from './deployment.types.js';

export type SecretsChange = { sealed: SealedSecret[]; changed: string[] };

export type DeploymentCommand =
  | {
      readonly kind: 'create';
      readonly deployment_id: string;
      readonly tenant_id: string;
      readonly name: string;
      readonly source: DeploymentSource;
      readonly source_config: SourceConfigInput;
      readonly source_revision_config: SourceRevisionConfigInput;
      readonly secrets: SealedSecret[];
      readonly secret_references: SecretReference[] | null;
      readonly listener: ListenerInfo;
      /** The git_host integration of the tenant. */
      readonly integration_id: string;
      readonly revision_id: string;
      readonly tracing_project_id: string;
      readonly now: string;
    }
  | {
      readonly kind: 'patch';
      readonly deployment_id: string;
      readonly tenant_id: string;
      /** Immutable top-level fields, when the body names them. */
      readonly name?: string | null;
      readonly source?: DeploymentSource | null;
      readonly revision_source: DeploymentSource | null;
      readonly source_config: SourceConfigInput | null;
      readonly source_revision_config: SourceRevisionConfigInput | null;
      readonly secrets: SecretsChange | null;
      readonly secret_references: SecretReference[] | null;
      readonly revision_id: string;
      /** The SHA-256 of the tarball `source_revision_config.source_tarball_path` names, as uploaded. */
      readonly source_tarball_sha256: string | null;
      readonly trigger: 'patch' | 'push';
      readonly now: string;
    }
  | {
      readonly kind: 'issue_upload';
      readonly deployment_id: string;
      readonly tenant_id: string;
      readonly object_path: string;
      readonly expires_at: string;
      readonly now: string;
    }
  | {
      readonly kind: 'redeploy';
      readonly deployment_id: string;
      readonly tenant_id: string;
      readonly revision_id: string;
      readonly now: string;
    }
  | {
      readonly kind: 'delete';
      readonly deployment_id: string;
      readonly tenant_id: string;
      readonly now: string;
    }
  // What the listener reports as it provisions, builds and deploys.
  | {
      readonly kind: 'provisioned';
      readonly custom_url: string;
      readonly port: number;
      readonly database: string;
      readonly now: string;
    }
  | {
      readonly kind: 'revision_status';
      readonly revision_id: string;
      readonly status: RevisionStatus;
      readonly message: string | null;
      readonly now: string;
    }
  | {
      readonly kind: 'source_resolved';
      readonly revision_id: string;
      readonly repo_commit_sha: string;
      readonly commits_since: CommitsSince | null;
      readonly now: string;
    }
  | { readonly kind: 'activate'; readonly revision_id: string; readonly now: string }
  | { readonly kind: 'torn_down'; readonly now: string }
  | { readonly kind: 'tear_down_failed'; readonly message: string; readonly now: string };
