import type { DeploymentState, RevisionState } from '../deployments/domain/deployment.state.js';
import {
  nextRevisionStep,
  outcomeOf,
  type RevisionStep,
  type WorkResult,
} from '../deployments/domain/revision-workflow.js';
import { ConnectionBudgetExceededError } from '#libs/deployment-databases';
import type { UploadStore } from '../uploads/upload-store.js';
import type { DeploymentWriter } from './deployment-writer.js';
import { DiskQuotaExceededError } from './disk-quota.js';
import { openWorkspace, type RevisionWorkspace, type WorkspaceDeps } from './revision-workspace.js';
import { timeBuild, timeDeploy } from './rollout-metrics.js';
import type { RuntimeLauncher } from './runtime-launcher.js';
import type { RuntimeProcess } from './runtime-process.js';
import type { SourceBuilder } from './source-builder.js';

const READY_TIMEOUT_MS = 90_000;
const KEPT_BUILDS = 5;

export type RolloutDeps = WorkspaceDeps & {
  readonly uploads: UploadStore;
  readonly builder: SourceBuilder;
  readonly launcher: RuntimeLauncher;
  readonly writer: DeploymentWriter;
  /** Aborted when the control plane stops: builds in progress end. */
  readonly signal: AbortSignal;
};

/**
 * Takes one revision from its request to serving, asking revision-workflow.ts for each next step
 * and recording each outcome once: built (unless its build is kept), started beside the serving
 * runtime, switched to once its GET /ok answers; the previous runtime then stops. A failure leaves
 * the previous one serving.
 */
export class RevisionRollout {
  constructor(private readonly deps: RolloutDeps) {}

  async roll(state: DeploymentState, revision: RevisionState): Promise<void> {
    const workspace = await openWorkspace(this.deps, state, revision);
    const { deploymentId, log } = workspace;
    const revisionId = revision.revision_id;
    const taken: RevisionStep['kind'][] = [];
    let previous: RuntimeProcess | undefined;
    // Only where the rollout begins asks whether a build is kept.
    const built = await this.deps.builder.tree.isBuilt(deploymentId, revisionId);
    try {
      while (!this.stopped()) {
        const current = await this.deps.writer.load(deploymentId);
        const step = nextRevisionStep(current, revisionId, { built, taken, now: now() });
        if (step.kind === 'finish') return;
        taken.push(step.kind);
        if (step.kind === 'record') {
          if (step.note) log.write(step.note.phase, step.note.line);
          await this.deps.writer.record(deploymentId, step.commands);
        } else if (step.kind === 'retire') {
          await this.retire(workspace, current, previous);
        } else {
          const work = step.kind === 'build' ? this.build(workspace) : this.deploy(workspace);
          const { result, replaced } = await work;
          if (this.stopped()) return;
          previous = replaced;
          const after = await this.deps.writer.load(deploymentId);
          await this.deps.writer.record(
            deploymentId,
            outcomeOf(step, result, after, revisionId, now()),
          );
        }
      }
    } finally {
      await log.flush();
    }
  }

  private stopped(): boolean {
    return this.deps.signal.aborted;
  }

  /**
   * After a restart of the control plane, or of its runtime, the active revision runs again (no
   * new revision). Returns why it could not, for the caller to try again later.
   */
  async restartActive(
    state: DeploymentState,
    revision: RevisionState,
  ): Promise<string | undefined> {
    const workspace = await openWorkspace(this.deps, state, revision);
    const { log } = workspace;
    log.write('deploy', 'Starting the active revision again');
    let process: RuntimeProcess | undefined;
    try {
      process = await this.deps.launcher.launch(workspace, 'restart');
      await process.ready(READY_TIMEOUT_MS);
      this.deps.launcher.serve(workspace, process);
      return undefined;
    } catch (error) {
      await process?.stop();
      return log.redact(messageOf(error));
    } finally {
      await log.flush();
    }
  }

  private async build(
    workspace: RevisionWorkspace,
  ): Promise<{ result: WorkResult; replaced?: undefined }> {
    const { deployment, revision, log } = workspace;
    const config = revision.source_revision_config;
    const started = Date.now();
    const buildEnded = timeBuild();
    const result = await this.deps.builder.build(
      workspace,
      {
        tarball: config.source_tarball_path
          ? this.deps.uploads.pathOf(config.source_tarball_path)
          : undefined,
        // Absent from revisions recorded before checksums were kept.
        tarballSha256: revision.source_tarball_sha256 ?? null,
        repoUrl: deployment.source_config.repo_url,
        repoRef: config.repo_ref,
        previousCommitSha: commitBefore(deployment, revision.revision_id),
        installCommand: deployment.source_config.install_command,
        buildCommand: deployment.source_config.build_command,
      },
      this.deps.signal,
    );
    if (this.deps.signal.aborted) return { result };
    buildEnded(result.ok ? 'success' : 'failure');
    if (!result.ok) {
      log.write('build', `Build failed: ${result.reason}`);
      return { result: { ok: false, reason: log.redact(result.reason) } };
    }
    log.write('build', `Build finished in ${Date.now() - started} ms`);
    return { result };
  }

  /** Starts the revision's runtime and switches to it once it answers; the log says why not. */
  private async deploy(
    workspace: RevisionWorkspace,
  ): Promise<{ result: WorkResult; replaced?: RuntimeProcess }> {
    const { log, deployment } = workspace;
    const deployEnded = timeDeploy();
    let process: RuntimeProcess | undefined;
    try {
      process = await this.deps.launcher.launch(workspace, 'rollout');
      await process.ready(READY_TIMEOUT_MS);
    } catch (error) {
      deployEnded('failure');
      await process?.stop();
      // No connections or disk left for this deployment: refused, the others untouched.
      const refused =
        error instanceof ConnectionBudgetExceededError || error instanceof DiskQuotaExceededError;
      const reason = messageOf(error);
      log.write('deploy', refused ? `Deploy refused: ${reason}` : `Deploy failed: ${reason}`);
      await log.flush();
      return { result: { ok: false, reason: log.redact(reason) } };
    }
    deployEnded('success');
    const replaced = this.deps.launcher.serve(workspace, process);
    // Whoever reads DEPLOYED finds the log that led there, the runtime's own lines included.
    log.write('deploy', `Serving at ${deployment.source_config.custom_url ?? ''}`);
    await log.flush();
    return { result: { ok: true }, replaced };
  }

  /** Once the new revision serves: the one it replaced stops, and old builds go. */
  private async retire(
    workspace: RevisionWorkspace,
    state: DeploymentState,
    previous: RuntimeProcess | undefined,
  ): Promise<void> {
    const { deploymentId, revision, identity, log } = workspace;
    if (previous) {
      await previous.stop();
      log.write('deploy', `Stopped the previous revision ${previous.revisionId}`);
    }
    const keep = state.revisions.slice(-KEPT_BUILDS).map((r) => r.revision_id);
    const kept = [...new Set([...keep, revision.revision_id])];
    await this.deps.builder.tree.prune(deploymentId, kept, identity);
  }
}

const now = (): string => new Date().toISOString();

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** The commit the revision created before this one was built from, if it was a git build. */
function commitBefore(deployment: DeploymentState, revisionId: string): string | null {
  const at = deployment.revisions.findIndex((r) => r.revision_id === revisionId);
  return at > 0
    ? (deployment.revisions[at - 1]?.source_revision_config.repo_commit_sha ?? null)
    : null;
}
