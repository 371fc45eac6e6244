import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  access,
  chmod,
  chown,
  lchown,
  lstat,
  mkdir,
  readdir,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { promisify } from 'node:util';
import { extractArchive } from '#libs/source-archive';
import { isLocalGitSource, REMOTE_GIT_PROTOCOLS } from '../isolation/git-source-policy.js';
import type { OsIdentity } from '../isolation/os-identities.js';
import type { CommandRegistry } from './command-registry.js';
import { runCommand } from './command-runner.js';
import { planInstall } from './install-plan.js';
import { sha256OfFile } from '../uploads/upload-store.js';

const run = promisify(execFile);
const INSTALL_TIMEOUT_MS = 15 * 60 * 1000;
const BUILD_TIMEOUT_MS = 15 * 60 * 1000;
const CLONE_TIMEOUT_MS = 5 * 60 * 1000;
const BUILT_MARKER = '.berth-built';

export type BuildSpec = {
  readonly revisionId: string;
  readonly tarball: string | undefined;
  /** What the tarball's SHA-256 must be; null for revisions recorded before checksums were kept. */
  readonly tarballSha256: string | null;
  readonly repoUrl: string | null;
  readonly repoRef: string | null;
  readonly graphConfigPath: string;
  readonly installCommand: string | null;
  readonly buildCommand: string | null;
  /** Installed dependencies are shared only within this scope (a tenant). */
  readonly cacheScope: string;
  /** The OS user and group the commands run as; undefined where privileges cannot be dropped. */
  readonly identity: OsIdentity | undefined;
};

/** Where a build's commands run, as whom, and with which home and package cache. */
type CommandContext = {
  readonly identity: OsIdentity | undefined;
  readonly env: Record<string, string>;
};

export type BuildResult =
  { ok: true; commitSha: string | undefined } | { ok: false; reason: string };

/**
 * What build commands see of the environment: enough to run, nothing of the platform's. When
 * they run as a user of their own, their home and npm cache are theirs too.
 */
function buildEnvironment(home: string, npmCache: string | undefined): Record<string, string> {
  const env: Record<string, string> = { CI: 'true', NODE_ENV: 'development', HOME: home };
  for (const name of ['PATH', 'LANG', 'TZ', 'npm_config_cache', 'npm_config_registry']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  if (npmCache) env.npm_config_cache = npmCache;
  return env;
}

/**
 * Turns a revision's source (an uploaded tarball or a git ref) into a directory the runtime can
 * serve: extracted or cloned, dependencies installed (reused across revisions with the same
 * lockfile), built. Each revision keeps its own directory, so an earlier one can be redeployed
 * without a rebuild.
 */
export class SourceBuilder {
  constructor(
    private readonly root: string,
    private readonly commands: CommandRegistry,
    /** Whether git may clone from this machine's disk (BERTH_ALLOW_LOCAL_SOURCES). */
    private readonly allowLocalSources = false,
  ) {}

  /** Ends the commands an earlier control plane left running (see CommandRegistry). */
  killLeftovers(): Promise<number> {
    return this.commands.killLeftovers();
  }

  revisionDir(deploymentId: string, revisionId: string): string {
    return join(this.root, 'deployments', deploymentId, 'revisions', revisionId);
  }

  /** The home directory of the deployment's commands and runtime. */
  homeDir(deploymentId: string): string {
    return join(this.root, 'deployments', deploymentId, 'home');
  }

  /**
   * The deployment's directory and home, owned by its OS user (when it has one) and closed to
   * every other user; the tenant's installed dependencies closed to other tenants. Done before
   * each build and each start, so that what an earlier Berth left open is closed too.
   */
  async prepareDeployment(
    deploymentId: string,
    identity: OsIdentity | undefined,
    cacheScope?: string,
  ): Promise<void> {
    if (cacheScope !== undefined) {
      await this.tenantDir(['cache', 'dependencies', cacheScope], identity, 0o750);
    }
    const dir = join(this.root, 'deployments', deploymentId);
    for (const path of [dir, this.homeDir(deploymentId)]) {
      await mkdir(path, { recursive: true });
      if (identity) await chown(path, identity.uid, identity.gid);
      await chmod(path, 0o700);
    }
  }

  sourceDir(deploymentId: string, revisionId: string): string {
    return join(this.revisionDir(deploymentId, revisionId), 'source');
  }

  async isBuilt(deploymentId: string, revisionId: string): Promise<boolean> {
    return access(join(this.revisionDir(deploymentId, revisionId), BUILT_MARKER)).then(
      () => true,
      () => false,
    );
  }

  /** The graph configuration file of a built revision, checked to lie inside its source. */
  graphConfigFile(deploymentId: string, revisionId: string, graphConfigPath: string): string {
    const source = this.sourceDir(deploymentId, revisionId);
    const file = resolve(source, graphConfigPath);
    const inside = relative(source, file);
    if (inside.startsWith('..') || isAbsolute(inside)) {
      throw new Error(`graph_config_path ${graphConfigPath} leads outside the source`);
    }
    return file;
  }

  async build(
    deploymentId: string,
    spec: BuildSpec,
    log: (line: string) => void,
    signal: AbortSignal,
  ): Promise<BuildResult> {
    const dir = this.revisionDir(deploymentId, spec.revisionId);
    const source = join(dir, 'source');
    await this.prepareDeployment(deploymentId, spec.identity, spec.cacheScope);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    if (spec.identity)
      await chownTree(join(this.root, 'deployments', deploymentId, 'revisions'), spec.identity, 1);
    const context = await this.commandContext(deploymentId, spec);
    try {
      let commitSha: string | undefined;
      if (spec.tarball) {
        const refused = await this.checkTarball(spec, log);
        if (refused) return refused;
        log(`Extracting the uploaded source`);
        const { files, bytes } = await extractArchive(spec.tarball, source);
        log(`Extracted ${files} files (${bytes} bytes)`);
        if (spec.identity) await chownTree(dir, spec.identity);
      } else {
        commitSha = await this.clone(spec, source, context, log, signal);
      }
      let graphConfig: string;
      try {
        graphConfig = this.graphConfigFile(deploymentId, spec.revisionId, spec.graphConfigPath);
        if (!(await stat(graphConfig)).isFile()) throw new Error('not a file');
      } catch {
        return {
          ok: false,
          reason: `graph_config_path ${spec.graphConfigPath} is not a file in the source`,
        };
      }
      const installed = await this.install(source, spec, context, log, signal);
      if (!installed.ok) return installed;
      if (spec.buildCommand) {
        log(`Running the build command: ${spec.buildCommand}`);
        const built = await runCommand(spec.buildCommand, {
          cwd: dirname(graphConfig),
          ...context,
          timeoutMs: BUILD_TIMEOUT_MS,
          onLine: log,
          signal,
          registry: this.commands,
        });
        if (!built.ok) return built;
      }
      await writeFile(join(dir, BUILT_MARKER), new Date().toISOString());
      return { ok: true, commitSha };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Refuses a tarball that is not the one the revision recorded (see RevisionCreated). */
  private async checkTarball(
    spec: BuildSpec,
    log: (line: string) => void,
  ): Promise<BuildResult | undefined> {
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

  /** Removes every kept build of the deployment but the given revisions'. */
  async prune(deploymentId: string, keep: readonly string[]): Promise<void> {
    const revisions = join(this.root, 'deployments', deploymentId, 'revisions');
    const entries = await readdir(revisions).catch(() => [] as string[]);
    for (const entry of entries) {
      if (!keep.includes(entry)) await rm(join(revisions, entry), { recursive: true, force: true });
    }
  }

  async removeDeployment(deploymentId: string): Promise<void> {
    await rm(join(this.root, 'deployments', deploymentId), { recursive: true, force: true });
  }

  /**
   * As whom the commands run and with what environment. Run as the deployment's user, they get
   * the tenant's npm cache, shared by the tenant's deployments (group-writable, as they run with
   * umask 007) and closed to other tenants.
   */
  private async commandContext(deploymentId: string, spec: BuildSpec): Promise<CommandContext> {
    const home = this.homeDir(deploymentId);
    if (!spec.identity) return { identity: undefined, env: buildEnvironment(home, undefined) };
    const npmCache = await this.tenantDir(['cache', 'npm', spec.cacheScope], spec.identity, 0o2770);
    return { identity: spec.identity, env: buildEnvironment(home, npmCache) };
  }

  /**
   * Remote protocols only, unless local sources are allowed; a local repository (owned by
   * another user than the deployment's, which git would refuse) is then trusted as named, through
   * a global git configuration of the platform's (git honours safe.directory only there).
   */
  private async gitAccess(repoUrl: string): Promise<Record<string, string>> {
    if (!this.allowLocalSources) return { GIT_ALLOW_PROTOCOL: REMOTE_GIT_PROTOCOLS };
    const protocols = { GIT_ALLOW_PROTOCOL: `${REMOTE_GIT_PROTOCOLS}:file` };
    if (!isLocalGitSource(repoUrl)) return protocols;
    const config = join(this.root, 'local-sources.gitconfig');
    await writeFile(config, '[safe]\n\tdirectory = *\n', { mode: 0o644 });
    return { ...protocols, GIT_CONFIG_GLOBAL: config };
  }

  /** A directory of the tenant's: the platform's, shared with the tenant's group only. */
  private async tenantDir(
    path: string[],
    identity: OsIdentity | undefined,
    mode: number,
  ): Promise<string> {
    const dir = join(this.root, ...path);
    await mkdir(dir, { recursive: true });
    if (identity) {
      await chown(dir, 0, identity.gid);
      await chmod(dir, mode);
    }
    return dir;
  }

  private async clone(
    spec: BuildSpec,
    source: string,
    context: CommandContext,
    log: (line: string) => void,
    signal: AbortSignal,
  ): Promise<string> {
    if (!spec.repoUrl || !spec.repoRef)
      throw new Error('A git_host revision needs repo_url and repo_ref');
    const branch = spec.repoRef.replace(/^refs\/(heads|tags)\//, '');
    log(`Cloning ${spec.repoUrl} at ${spec.repoRef}`);
    const cloned = await runCommand(
      `git clone --quiet --depth 1 --branch ${shellQuote(branch)} -- ${shellQuote(spec.repoUrl)} ${shellQuote(source)}`,
      {
        cwd: dirname(source),
        identity: context.identity,
        env: {
          ...context.env,
          GIT_TERMINAL_PROMPT: '0',
          ...(await this.gitAccess(spec.repoUrl)),
        },
        timeoutMs: CLONE_TIMEOUT_MS,
        onLine: log,
        signal,
        registry: this.commands,
      },
    );
    if (!cloned.ok) throw new Error(cloned.reason);
    const { stdout } = await run('git', ['-C', source, 'rev-parse', 'HEAD'], {
      uid: context.identity?.uid,
      gid: context.identity?.gid,
      env: context.env,
    });
    const sha = stdout.trim();
    log(`Cloned commit ${sha}`);
    await rm(join(source, '.git'), { recursive: true, force: true });
    return sha;
  }

  private async install(
    source: string,
    spec: BuildSpec,
    context: CommandContext,
    log: (line: string) => void,
    signal: AbortSignal,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const plan = await planInstall(source, spec.installCommand);
    if (!plan.command) {
      log(`No install step (${plan.reason})`);
      return { ok: true };
    }
    const scope = await this.tenantDir(
      ['cache', 'dependencies', spec.cacheScope],
      spec.identity,
      0o750,
    );
    const cached = join(scope, plan.cacheKey, 'node_modules');
    const target = join(source, 'node_modules');
    if (await exists(cached)) {
      await rm(target, { recursive: true, force: true });
      await symlink(cached, target, 'dir');
      log(
        `Dependencies unchanged: reusing the installed node_modules (${plan.cacheKey.slice(0, 12)})`,
      );
      return { ok: true };
    }
    log(`Installing dependencies: ${plan.command} (${plan.reason})`);
    const installed = await runCommand(plan.command, {
      cwd: source,
      ...context,
      timeoutMs: INSTALL_TIMEOUT_MS,
      onLine: log,
      signal,
      registry: this.commands,
    });
    if (!installed.ok) return installed;
    if (await exists(target)) {
      const staging = `${dirname(cached)}.${randomUUID()}`;
      await mkdir(staging, { recursive: true });
      await rename(target, join(staging, 'node_modules'));
      // Another build with the same key may have finished first: then use theirs.
      await rename(staging, dirname(cached)).catch(() =>
        rm(staging, { recursive: true, force: true }),
      );
      await symlink(cached, target, 'dir');
    }
    return { ok: true };
  }
}

/** Gives the tree to the deployment's user, down to `depth` levels (symlinks themselves, unfollowed). */
async function chownTree(target: string, identity: OsIdentity, depth = Infinity): Promise<void> {
  await lchown(target, identity.uid, identity.gid);
  if (depth <= 0 || !(await lstat(target)).isDirectory()) return;
  for (const entry of await readdir(target)) {
    await chownTree(join(target, entry), identity, depth - 1);
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
