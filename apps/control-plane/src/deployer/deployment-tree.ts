import { access, lstat, readdir } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { JailRequest } from '../isolation/jailer.js';
import type { OsIdentity } from '../isolation/os-identities.js';
import {
  ensureDirectory,
  PLATFORM,
  removeTenantTree,
  writePlatformFile,
} from '../isolation/tenant-tree.js';
import { PLATFORM_ROOT } from '../platform-paths.js';

const BUILT_MARKER = '.berth-built';

/** What a runtime reads of Berth itself: its built code, its packages, its package.json. */
const PLATFORM_CODE = ['dist', 'node_modules', 'package.json'].map((entry) =>
  join(PLATFORM_ROOT, entry),
);

/**
 * Where a deployment's files live, and who owns each directory. The platform owns every
 * directory that holds another (the deployment's, `revisions/`, each revision's), so the tenant
 * can never replace one of them with a link; the tenant owns only the leaves it writes: `home/`
 * and each revision's `source/`.
 *
 *   deployments/<id>/                      root 0711
 *     home/                                the deployment's user, 0700
 *     revisions/<revision>/                root 0711
 *       .berth-built                       root 0644
 *       source/                            the deployment's user, 0700
 *   cache/dependencies/<tenant>/<key>/     root:<tenant's group> 0750, installed dependencies
 */
export class DeploymentTree {
  constructor(private readonly root: string) {}

  deploymentDir(deploymentId: string): string {
    return join(this.root, 'deployments', deploymentId);
  }

  homeDir(deploymentId: string): string {
    return join(this.deploymentDir(deploymentId), 'home');
  }

  revisionsDir(deploymentId: string): string {
    return join(this.deploymentDir(deploymentId), 'revisions');
  }

  revisionDir(deploymentId: string, revisionId: string): string {
    return join(this.revisionsDir(deploymentId), revisionId);
  }

  sourceDir(deploymentId: string, revisionId: string): string {
    return join(this.revisionDir(deploymentId, revisionId), 'source');
  }

  /** The tenant's installed dependencies, shared by its deployments and no one else's. */
  dependencyScope(tenant: string): string {
    return join(this.root, 'cache', 'dependencies', tenant);
  }

  /** The graph configuration file of a revision, checked to lie inside its source. */
  graphConfigFile(deploymentId: string, revisionId: string, graphConfigPath: string): string {
    const source = this.sourceDir(deploymentId, revisionId);
    const file = resolve(source, graphConfigPath);
    const inside = relative(source, file);
    if (inside.startsWith('..') || isAbsolute(inside)) {
      throw new Error(`graph_config_path ${graphConfigPath} leads outside the source`);
    }
    return file;
  }

  /**
   * Makes the deployment's directories as the layout says, each opened without following links
   * and checked: what an earlier Berth gave the tenant (the deployment's directory, `revisions/`)
   * is taken back. Done before each build and each start.
   */
  async prepare(deploymentId: string, identity: OsIdentity | undefined, tenant: string) {
    const platform = identity ? PLATFORM : undefined;
    await ensureDirectory(join(this.root, 'cache', 'dependencies'), platform, 0o711);
    await ensureDirectory(
      this.dependencyScope(tenant),
      identity && { uid: 0, gid: identity.gid },
      0o750,
    );
    await ensureDirectory(this.deploymentDir(deploymentId), platform, 0o711);
    await ensureDirectory(this.homeDir(deploymentId), identity, 0o700);
    await ensureDirectory(this.revisionsDir(deploymentId), platform, 0o711);
  }

  /** Empties a revision's directory for a build: the platform's, with a source of its own. */
  async prepareRevision(
    deploymentId: string,
    revisionId: string,
    identity: OsIdentity | undefined,
  ) {
    const dir = this.revisionDir(deploymentId, revisionId);
    await removeTenantTree(dir, identity);
    await ensureDirectory(dir, identity ? PLATFORM : undefined, 0o711);
  }

  async markBuilt(deploymentId: string, revisionId: string): Promise<void> {
    const marker = join(this.revisionDir(deploymentId, revisionId), BUILT_MARKER);
    await writePlatformFile(marker, new Date().toISOString());
  }

  /** Whether the revision was built, by a marker only the platform can have written. */
  async isBuilt(deploymentId: string, revisionId: string): Promise<boolean> {
    const marker = join(this.revisionDir(deploymentId, revisionId), BUILT_MARKER);
    const found = await lstat(marker).catch(() => undefined);
    return !!found?.isFile() && found.uid === (process.getuid?.() ?? found.uid);
  }

  /** Removes every kept build of the deployment but the given revisions'. */
  async prune(deploymentId: string, keep: readonly string[], identity: OsIdentity | undefined) {
    const revisions = this.revisionsDir(deploymentId);
    const entries = await readdir(revisions).catch(() => [] as string[]);
    for (const entry of entries) {
      if (!keep.includes(entry)) await removeTenantTree(join(revisions, entry), identity);
    }
  }

  async remove(deploymentId: string, identity: OsIdentity | undefined): Promise<void> {
    await removeTenantTree(this.deploymentDir(deploymentId), identity);
  }

  /**
   * What a jailed build command or runtime of the revision sees: its source and the deployment's
   * home to write, the tenant's installed dependencies (and, for a runtime, Berth's code) to read.
   */
  jailRequest(
    kind: JailRequest['kind'],
    target: { deploymentId: string; revisionId: string; tenant: string; identity: OsIdentity },
    cwd: string,
    extraReadable: readonly string[] = [],
  ): JailRequest {
    const { deploymentId, revisionId, tenant, identity } = target;
    return {
      kind,
      deploymentId,
      identity,
      writable: [this.sourceDir(deploymentId, revisionId), this.homeDir(deploymentId)],
      readable: [
        this.dependencyScope(tenant),
        ...(kind === 'runtime' ? PLATFORM_CODE : []),
        ...extraReadable,
      ],
      cwd,
    };
  }
}

export async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
