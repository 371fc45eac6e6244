import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { access, mkdir, readdir, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { promisify } from 'node:util';
import { extractArchive } from '#libs/source-archive';
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
};

export type BuildResult =
  { ok: true; commitSha: string | undefined } | { ok: false; reason: string };

/** What build commands see of the environment: enough to run, nothing of the platform's. */
function buildEnvironment(): Record<string, string> {
  const env: Record<string, string> = { CI: 'true', NODE_ENV: 'development' };
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ', 'npm_config_cache', 'npm_config_registry']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
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
  ) {}

  /** Ends the commands an earlier control plane left running (see CommandRegistry). */
  killLeftovers(): Promise<number> {
    return this.commands.killLeftovers();
  }

  revisionDir(deploymentId: string, revisionId: string): string {
    return join(this.root, 'deployments', deploymentId, 'revisions', revisionId);
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
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    try {
      let commitSha: string | undefined;
      if (spec.tarball) {
        const refused = await this.checkTarball(spec, log);
        if (refused) return refused;
        log(`Extracting the uploaded source`);
        const { files, bytes } = await extractArchive(spec.tarball, source);
        log(`Extracted ${files} files (${bytes} bytes)`);
      } else {
        commitSha = await this.clone(spec, source, log, signal);
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
      const installed = await this.install(source, spec, log, signal);
      if (!installed.ok) return installed;
      if (spec.buildCommand) {
        log(`Running the build command: ${spec.buildCommand}`);
        const built = await runCommand(spec.buildCommand, {
          cwd: dirname(graphConfig),
          env: buildEnvironment(),
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

  private async clone(
    spec: BuildSpec,
    source: string,
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
        env: { ...buildEnvironment(), GIT_TERMINAL_PROMPT: '0' },
        timeoutMs: CLONE_TIMEOUT_MS,
        onLine: log,
        signal,
        registry: this.commands,
      },
    );
    if (!cloned.ok) throw new Error(cloned.reason);
    const { stdout } = await run('git', ['-C', source, 'rev-parse', 'HEAD']);
    const sha = stdout.trim();
    log(`Cloned commit ${sha}`);
    await rm(join(source, '.git'), { recursive: true, force: true });
    return sha;
  }

  private async install(
    source: string,
    spec: BuildSpec,
    log: (line: string) => void,
    signal: AbortSignal,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const plan = await planInstall(source, spec.installCommand);
    if (!plan.command) {
      log(`No install step (${plan.reason})`);
      return { ok: true };
    }
    const cached = join(
      this.root,
      'cache',
      'dependencies',
      spec.cacheScope,
      plan.cacheKey,
      'node_modules',
    );
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
      env: buildEnvironment(),
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

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
