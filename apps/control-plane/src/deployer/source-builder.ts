import { randomUUID } from 'node:crypto';
import { lstat, mkdir, rename, symlink } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractArchive } from '#libs/source-archive';
import { isLocalGitSource, REMOTE_GIT_PROTOCOLS } from '../isolation/git-source-policy.js';
import type { Jailer } from '../isolation/jailer.js';
import type { OsIdentity } from '../isolation/os-identities.js';
import { checkTenantFile } from '../isolation/tenant-file.js';
import {
  ensureDirectory,
  handOver,
  PLATFORM,
  removeTenantTree,
  sealForGroup,
  writePlatformFile,
} from '../isolation/tenant-tree.js';
import { BuildCancellations } from './build-cancellations.js';
import type { CommandRegistry } from './command-registry.js';
import { buildEnvironment } from './build-environment.js';
import { runCommand, type CommandOptions } from './command-runner.js';
import { DeploymentTree, exists } from './deployment-tree.js';
import type { DiskQuota } from './disk-quota.js';
import { planInstall } from './install-plan.js';
import { sha256OfFile } from '../uploads/upload-store.js';
import type { RevisionWorkspace } from './revision-workspace.js';
import type { CommitsSince } from '../deployments/domain/deployment.types.js';

const INSTALL_TIMEOUT_MS = 15 * 60 * 1000;
const BUILD_TIMEOUT_MS = 15 * 60 * 1000;
const CLONE_TIMEOUT_MS = 5 * 60 * 1000;
const GRAPH_CONFIG_MAX_BYTES = 1024 * 1024;
/** How many commits since the previous revision's a git revision lists. */
const COMMITS_KEPT = 100;
const COMMIT_LINE = /^([0-9a-f]{40})\t(.*)$/;

type ClonedCommit = { readonly sha: string; readonly commitsSince: CommitsSince | null };

/** A full commit id, or null: anything else never reaches a command line. */
const commitShaOrNull = (sha: string | null): string | null =>
  sha && /^[0-9a-f]{40}$/.test(sha) ? sha : null;

/** Where a revision's source comes from, and the commands that build it. */
export type BuildSource = {
  readonly tarball: string | undefined;
  /** What the tarball's SHA-256 must be; null for revisions recorded before checksums were kept. */
  readonly tarballSha256: string | null;
  readonly repoUrl: string | null;
  readonly repoRef: string | null;
  /** The commit the revision before it was built from: the commits since are listed. */
  readonly previousCommitSha: string | null;
  readonly installCommand: string | null;
  readonly buildCommand: string | null;
};

type BuildSpec = BuildSource & {
  readonly revisionId: string;
  readonly graphConfigPath: string;
  /** Installed dependencies are shared only within this scope (a tenant). */
  readonly cacheScope: string;
  /** The OS user and group the commands run as; undefined where privileges cannot be dropped. */
  readonly identity: OsIdentity | undefined;
};

export type BuildResult =
  | { ok: true; commitSha: string | undefined; commitsSince: CommitsSince | null }
  | { ok: false; reason: string };

type Log = (line: string) => void;

/** How one build runs its commands: as whom, in which jail, with which environment. */
type BuildCommands = {
  readonly run: (
    command: string,
    cwd: string,
    timeoutMs: number,
    extra?: { env?: Record<string, string>; readable?: readonly string[]; onLine?: Log },
  ) => ReturnType<typeof runCommand>;
};

/**
 * Turns a revision's source (an uploaded tarball or a git ref) into a directory the runtime can
 * serve: extracted or cloned, dependencies installed (reused across revisions with the same
 * lockfile), built. Each revision keeps its own directory, so an earlier one can be redeployed
 * without a rebuild. Where tenants are jailed, every command of the build runs in the
 * deployment's jail; the platform itself only touches the tree as DeploymentTree allows.
 */
export class SourceBuilder {
  readonly tree: DeploymentTree;
  private readonly cancellations = new BuildCancellations();

  constructor(
    private readonly root: string,
    private readonly commands: CommandRegistry,
    /** Whether git may clone from this machine's disk (BERTH_ALLOW_LOCAL_SOURCES). */
    private readonly allowLocalSources: boolean,
    readonly quota: DiskQuota,
    private readonly jailer?: Jailer,
  ) {
    this.tree = new DeploymentTree(root);
  }

  /** Ends the commands an earlier control plane left running (see CommandRegistry). */
  killLeftovers(): Promise<number> {
    return this.commands.killLeftovers();
  }

  /** Ends the deployment's builds in progress (it is being deleted); how many there were. */
  cancelBuilds(deploymentId: string, reason: string): number {
    return this.cancellations.cancel(deploymentId, reason);
  }

  /**
   * Builds the revision; its commands are stopped when the deployment's tree outgrows its quota
   * or its builds are cancelled.
   */
  async build(
    workspace: RevisionWorkspace,
    source: BuildSource,
    signal: AbortSignal,
  ): Promise<BuildResult> {
    const { deploymentId, log } = workspace;
    const spec: BuildSpec = {
      ...source,
      revisionId: workspace.revision.revision_id,
      graphConfigPath: workspace.graphConfigPath,
      cacheScope: workspace.tenant,
      identity: workspace.identity,
    };
    const logLine = (line: string): void => {
      log.write('build', line);
    };
    const overQuota = new AbortController();
    const stopWatching = this.quota.watch(workspace.dirs.deployment, (error) => {
      overQuota.abort(error);
    });
    const cancellation = this.cancellations.begin(deploymentId);
    try {
      const built = await this.buildWithin(
        deploymentId,
        spec,
        logLine,
        AbortSignal.any([signal, overQuota.signal, cancellation.signal]),
      );
      if (built.ok) {
        await this.quota.check(workspace.dirs.deployment);
        await this.tree.markBuilt(deploymentId, spec.revisionId);
        return built;
      }
      await this.discard(workspace, logLine);
      return built;
    } catch (error) {
      await this.discard(workspace, logLine);
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    } finally {
      cancellation.end();
      stopWatching();
    }
  }

  /** A failed build keeps nothing on disk (its log says what happened). */
  private async discard(workspace: RevisionWorkspace, log: Log): Promise<void> {
    await removeTenantTree(workspace.dirs.revision, workspace.identity).catch((error: unknown) => {
      log(`The failed build's files could not all be removed: ${String(error)}`);
    });
  }

  private async buildWithin(
    deploymentId: string,
    spec: BuildSpec,
    log: Log,
    signal: AbortSignal,
  ): Promise<BuildResult> {
    const { tree } = this;
    const { identity, revisionId } = spec;
    const source = tree.sourceDir(deploymentId, revisionId);
    await tree.prepare(deploymentId, identity, spec.cacheScope);
    await tree.prepareRevision(deploymentId, revisionId, identity);
    const commands = this.commandsOf(deploymentId, spec, log, signal);
    let cloned: ClonedCommit | undefined;
    if (spec.tarball) {
      const refused = await this.checkTarball(spec, log);
      if (refused) return refused;
      await ensureDirectory(source, identity ? PLATFORM : undefined, 0o700);
      log(`Extracting the uploaded source`);
      const { files, bytes } = await extractArchive(spec.tarball, source);
      log(`Extracted ${files} files (${bytes} bytes)`);
      if (identity) await handOver(source, identity);
    } else {
      await ensureDirectory(source, identity, 0o700);
      cloned = await this.clone(spec, source, commands, log);
    }
    const graphConfig = await this.checkGraphConfig(deploymentId, spec);
    if (!graphConfig.ok) return graphConfig;
    const installed = await this.install(source, spec, commands, log);
    if (!installed.ok) return installed;
    if (spec.buildCommand) {
      log(`Running the build command: ${spec.buildCommand}`);
      const built = await commands.run(
        spec.buildCommand,
        dirname(graphConfig.file),
        BUILD_TIMEOUT_MS,
      );
      if (!built.ok) return built;
    }
    return { ok: true, commitSha: cloned?.sha, commitsSince: cloned?.commitsSince ?? null };
  }

  /** The graph configuration: a regular file of the source's, checked without following links. */
  private async checkGraphConfig(
    deploymentId: string,
    spec: BuildSpec,
  ): Promise<{ ok: true; file: string } | { ok: false; reason: string }> {
    const { revisionId, graphConfigPath } = spec;
    let file: string;
    try {
      file = this.tree.graphConfigFile(deploymentId, revisionId, graphConfigPath);
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    const source = this.tree.sourceDir(deploymentId, revisionId);
    const checked = await checkTenantFile(source, relative(source, file), {
      maxBytes: GRAPH_CONFIG_MAX_BYTES,
      ownerUid: spec.identity?.uid,
    });
    if (checked.ok) return { ok: true, file };
    return { ok: false, reason: `graph_config_path ${graphConfigPath}: ${checked.reason}` };
  }

  /** Refuses a tarball that is not the one the revision recorded (see RevisionCreated). */
  private async checkTarball(spec: BuildSpec, log: Log): Promise<BuildResult | undefined> {
    if (!spec.tarball) return undefined;
    if (!spec.tarballSha256) {
      log('This revision was recorded before tarball checksums were kept: built as uploaded');
      return undefined;
    }
    const found = await sha256OfFile(spec.tarball);
    if (found === spec.tarballSha256) return undefined;
    return {
      ok: false,
      reason:
        `The uploaded tarball is not the one this revision was created from (SHA-256 ${found}, ` +
        `recorded ${spec.tarballSha256}): it is not built`,
    };
  }

  /** Each command of the build: in the deployment's jail where there is one, else as its user. */
  private commandsOf(
    deploymentId: string,
    spec: BuildSpec,
    log: Log,
    signal: AbortSignal,
  ): BuildCommands {
    const env = buildEnvironment(this.tree.homeDir(deploymentId));
    const { identity } = spec;
    return {
      run: (command, cwd, timeoutMs, extra = {}) => {
        const options: CommandOptions = {
          cwd,
          env: { ...env, ...extra.env },
          identity,
          timeoutMs,
          onLine: extra.onLine ?? log,
          signal,
          registry: this.commands,
        };
        const { jailer } = this;
        if (!jailer || !identity) return runCommand(command, options);
        const target = {
          deploymentId,
          revisionId: spec.revisionId,
          tenant: spec.cacheScope,
          identity,
        };
        const request = this.tree.jailRequest('build', target, cwd, extra.readable);
        return runCommand(command, { ...options, jail: (argv) => jailer.jail(request, argv) });
      },
    };
  }

  /**
   * Remote protocols only, unless local sources are allowed; a local repository (owned by
   * another user than the deployment's, which git would refuse) is then shown read-only in the
   * jail and trusted as named, through a global git configuration of the platform's (git honours
   * safe.directory only in protected configuration, and keeps no command-line setting for the
   * upload-pack of a local clone).
   */
  private async gitAccess(
    repoUrl: string,
  ): Promise<{ env: Record<string, string>; readable: string[] }> {
    if (!this.allowLocalSources)
      return { env: { GIT_ALLOW_PROTOCOL: REMOTE_GIT_PROTOCOLS }, readable: [] };
    const env = { GIT_ALLOW_PROTOCOL: `${REMOTE_GIT_PROTOCOLS}:file` };
    if (!isLocalGitSource(repoUrl)) return { env, readable: [] };
    const path = repoUrl.startsWith('file://') ? fileURLToPath(repoUrl) : resolve(repoUrl);
    const config = join(this.root, 'local-sources.gitconfig');
    await writePlatformFile(config, '[safe]\n\tdirectory = *\n');
    return { env: { ...env, GIT_CONFIG_GLOBAL: config }, readable: [path, config] };
  }

  private async clone(
    spec: BuildSpec,
    source: string,
    commands: BuildCommands,
    log: Log,
  ): Promise<ClonedCommit> {
    if (!spec.repoUrl || !spec.repoRef)
      throw new Error('A git_host revision needs repo_url and repo_ref');
    const branch = spec.repoRef.replace(/^refs\/(heads|tags)\//, '');
    log(`Cloning ${spec.repoUrl} at ${spec.repoRef}`);
    const access = await this.gitAccess(spec.repoUrl);
    const extra = { env: { GIT_TERMINAL_PROMPT: '0', ...access.env }, readable: access.readable };
    const previous = commitShaOrNull(spec.previousCommitSha);
    // Deep enough to list the commits since the previous revision's, up to what is kept.
    const depth = previous ? COMMITS_KEPT + 1 : 1;
    const cloned = await commands.run(
      `git clone --quiet --depth ${depth} --branch ${shellQuote(branch)} -- ${shellQuote(spec.repoUrl)} .`,
      source,
      CLONE_TIMEOUT_MS,
      extra,
    );
    if (!cloned.ok) throw new Error(cloned.reason);
    let sha = '';
    const resolved = await commands.run('git rev-parse HEAD', source, CLONE_TIMEOUT_MS, {
      ...extra,
      onLine: (line) => {
        sha ||= line.trim();
      },
    });
    if (!resolved.ok) throw new Error(resolved.reason);
    const commitsSince = previous
      ? await this.commitsSince(previous, source, commands, extra)
      : null;
    const removed = await commands.run('rm -rf .git', source, CLONE_TIMEOUT_MS, extra);
    if (!removed.ok) throw new Error(removed.reason);
    log(`Cloned commit ${sha}`);
    return { sha, commitsSince };
  }

  /** The commits from `previous` (excluded) to the clone's, newest first, as git lists them. */
  private async commitsSince(
    previous: string,
    source: string,
    commands: BuildCommands,
    extra: { env: Record<string, string>; readable: string[] },
  ): Promise<CommitsSince> {
    const lines: string[] = [];
    const listed = await commands.run(
      `git cat-file -e ${previous}^{commit} && ` +
        `git log --format='%H%x09%s' --max-count=${COMMITS_KEPT + 1} ${previous}..HEAD`,
      source,
      CLONE_TIMEOUT_MS,
      {
        ...extra,
        onLine: (line) => {
          lines.push(line);
        },
      },
    );
    if (!listed.ok) {
      return {
        from_sha: previous,
        commits: null,
        truncated: false,
        reason: `the previous revision's commit is not among the last ${COMMITS_KEPT} of the ref`,
      };
    }
    const commits = lines.flatMap((line) => {
      const match = COMMIT_LINE.exec(line);
      return match?.[1] ? [{ sha: match[1], message: (match[2] ?? '').slice(0, 500) }] : [];
    });
    return {
      from_sha: previous,
      commits: commits.slice(0, COMMITS_KEPT),
      truncated: commits.length > COMMITS_KEPT,
      reason: null,
    };
  }

  private async install(
    source: string,
    spec: BuildSpec,
    commands: BuildCommands,
    log: Log,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const plan = await planInstall(source, spec.installCommand, spec.identity?.uid);
    if (!plan.command) {
      log(`No install step (${plan.reason})`);
      return { ok: true };
    }
    const scope = this.tree.dependencyScope(spec.cacheScope);
    const cached = join(scope, plan.cacheKey, 'node_modules');
    const target = join(source, 'node_modules');
    if (await exists(cached)) {
      await removeTenantTree(target, spec.identity);
      await symlink(cached, target, 'dir');
      log(
        `Dependencies unchanged: reusing the installed node_modules (${plan.cacheKey.slice(0, 12)})`,
      );
      return { ok: true };
    }
    log(`Installing dependencies: ${plan.command} (${plan.reason})`);
    const installed = await commands.run(plan.command, source, INSTALL_TIMEOUT_MS);
    if (!installed.ok) return installed;
    const made = await lstat(target).catch(() => undefined);
    if (!made) return { ok: true };
    if (!made.isDirectory() || (spec.identity && made.uid !== spec.identity.uid)) {
      return { ok: false, reason: 'node_modules is not a directory the install made' };
    }
    const staging = `${dirname(cached)}.${randomUUID()}`;
    await mkdir(staging, { mode: 0o700 });
    await rename(target, join(staging, 'node_modules'));
    if (spec.identity) {
      await sealForGroup(staging, spec.identity.gid);
      await ensureDirectory(staging, { uid: PLATFORM.uid, gid: spec.identity.gid }, 0o750);
    }
    // Another build with the same key may have finished first: then use theirs.
    await rename(staging, dirname(cached)).catch(() => removeTenantTree(staging, undefined));
    await symlink(cached, target, 'dir');
    return { ok: true };
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
