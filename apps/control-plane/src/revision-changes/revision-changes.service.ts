import { createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { notFound } from '#libs/domain';
import { DeploymentTree } from '../deployer/deployment-tree.js';
import { DeploymentQueries } from '../deployments/deployment-queries.service.js';
import {
  findRevision,
  type DeploymentState,
  type RevisionState,
} from '../deployments/domain/deployment.state.js';
import {
  compareRevisions,
  type ComparedRevision,
  type RevisionChanges,
  type SourceSnapshot,
} from '../deployments/domain/revision-changes.js';
import { PLATFORM_RESOURCES } from '../control-plane.tokens.js';
import { buildsDirectory, type PlatformResources } from '../platform-resources.js';
import { SecretVault } from '../secrets/secret-vault.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { UploadStore } from '../uploads/upload-store.js';
import { tarballSnapshot } from './tarball-snapshot.js';
import { treeSnapshot } from './tree-snapshot.js';

/**
 * What changed between two revisions of a caller's deployment: their sources read as the
 * platform keeps them (the uploaded tarball, or a git source's checkout), their secrets compared
 * by value inside this process and answered by name, their settings; compared by
 * compareRevisions.
 */
@Injectable()
export class RevisionChangesService {
  private readonly tree: DeploymentTree;

  constructor(
    @Inject(DeploymentQueries) private readonly queries: DeploymentQueries,
    @Inject(UploadStore) private readonly uploads: UploadStore,
    @Inject(SecretVault) private readonly vault: SecretVault,
    @Inject(PLATFORM_RESOURCES) private readonly resources: PlatformResources,
  ) {
    this.tree = new DeploymentTree(buildsDirectory(resources.config));
  }

  async changes(
    caller: Caller,
    deploymentId: string,
    revisionId: string,
    againstId: string | undefined,
  ): Promise<RevisionChanges> {
    const state = await this.queries.stateOf(caller, deploymentId);
    const revision = findRevision(state, revisionId);
    if (!revision) throw notFound(`Revision ${revisionId} of deployment ${deploymentId} not found`);
    const against =
      againstId === undefined ? replacedBy(state, revision) : findRevision(state, againstId);
    if (againstId !== undefined && !against) {
      throw notFound(
        `Revision ${againstId} (against) is not a revision of deployment ${deploymentId}: ` +
          'changes compare two revisions of the same deployment',
      );
    }
    // One key per answer: equal values print alike within it, and nothing outlives it.
    const fingerprintKey = randomBytes(32);
    const [compared, base] = await Promise.all([
      this.sideOf(state, revision, fingerprintKey),
      against ? this.sideOf(state, against, fingerprintKey) : undefined,
    ]);
    return compareRevisions(compared, base);
  }

  private async sideOf(
    state: DeploymentState,
    revision: RevisionState,
    fingerprintKey: Buffer,
  ): Promise<ComparedRevision> {
    const deploymentId = state.deployment_id ?? '';
    const opened = await this.vault.open(deploymentId, revision.secrets);
    const secrets = new Map(
      opened.map(({ name, value }) => [
        name,
        createHmac('sha256', fingerprintKey).update(value).digest('hex'),
      ]),
    );
    return {
      revision,
      source: await this.sourceOf(state, revision),
      secrets,
      commitsSince: revision.commits_since ?? null,
    };
  }

  private async sourceOf(state: DeploymentState, revision: RevisionState): Promise<SourceSnapshot> {
    const deploymentId = state.deployment_id ?? '';
    const config = revision.source_revision_config;
    const graphConfigPath = config.graph_config_path ?? 'langgraph.json';
    if (revision.source === 'internal_source') {
      const objectPath = config.source_tarball_path;
      if (!objectPath || !(await this.uploads.exists(objectPath).catch(() => false))) {
        return { kept: false, reason: 'its uploaded tarball is no longer kept' };
      }
      return tarballSnapshot(
        this.uploads.pathOf(objectPath),
        revision.source_tarball_sha256 ?? null,
        graphConfigPath,
      );
    }
    if (revision.source === 'git_host') {
      const identity = await this.resources.sandbox.identityOf(deploymentId, state.tenant_id ?? '');
      return treeSnapshot(
        this.tree.sourceDir(deploymentId, revision.revision_id),
        graphConfigPath,
        identity?.uid,
      );
    }
    return {
      kept: false,
      reason: 'it is built from an image, not a source (its image is compared in config)',
    };
  }
}

/** The revision created just before this one: the one it replaced. */
function replacedBy(state: DeploymentState, revision: RevisionState): RevisionState | undefined {
  const at = state.revisions.findIndex((r) => r.revision_id === revision.revision_id);
  return at > 0 ? state.revisions[at - 1] : undefined;
}
