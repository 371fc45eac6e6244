import { join } from 'node:path';
import type pg from 'pg';
import { acceptsAnyPassword, withDatabase } from '#libs/database';
import { PLATFORM_ROOT, RUNTIME_SCRIPT } from '../platform-paths.js';
import {
  firstUntraversable,
  restrictDataDirectory,
  unreadableByOthers,
} from './data-dir-permissions.js';
import { DeploymentDatabaseRoles } from './deployment-database-roles.js';
import { OsIdentities, type OsIdentity } from './os-identities.js';
import { dropsPrivileges, sealingGaps, type SealingFacts } from './sealing-gaps.js';

export interface SandboxOptions {
  readonly dataDir: string;
  readonly buildsDir: string;
  readonly pool: pg.Pool;
  /** The server deployments get their databases on, as the platform's role. */
  readonly serverUrl: string;
  /** The platform's own database. */
  readonly platformUrl: string;
  /** Derives the passwords of the deployments' database roles. */
  readonly roleKey: Buffer;
}

/** What a deployment's builds and runtime run as, and the database login its runtime uses. */
export class TenantSandbox {
  private constructor(
    /** Why tenants are not sealed from each other here; empty when they are. */
    readonly gaps: readonly string[],
    private readonly identities: OsIdentities | undefined,
    private readonly roles: DeploymentDatabaseRoles | undefined,
    private readonly serverUrl: string,
  ) {}

  static async open(options: SandboxOptions): Promise<TenantSandbox> {
    await restrictDataDirectory(options.dataDir, options.buildsDir);
    const roles = new DeploymentDatabaseRoles(options.serverUrl, options.roleKey);
    const runsAsRoot = process.getuid?.() === 0;
    const facts: SealingFacts = {
      runsAsRoot,
      unreadablePlatformPaths: runsAsRoot
        ? await unreadableByOthers([
            RUNTIME_SCRIPT,
            join(PLATFORM_ROOT, 'node_modules', '@nestjs', 'core', 'package.json'),
          ])
        : [],
      untraversableDataDirAncestor: runsAsRoot
        ? await firstUntraversable(join(options.dataDir, 'x'))
        : undefined,
      databaseTrustsEveryone: await acceptsAnyPassword(options.serverUrl),
      databaseRoleCanCreateRoles: await roles.canCreateRoles(),
    };
    const rolesUsed = facts.databaseRoleCanCreateRoles ? roles : undefined;
    await rolesUsed?.sealPlatformDatabase(options.platformUrl);
    return new TenantSandbox(
      sealingGaps(facts),
      dropsPrivileges(facts) ? new OsIdentities(options.pool) : undefined,
      rolesUsed,
      options.serverUrl,
    );
  }

  get sealed(): boolean {
    return this.gaps.length === 0;
  }

  /** The OS user and group to run as; undefined when privileges cannot be dropped here. */
  identityOf(deploymentId: string, tenantId: string): Promise<OsIdentity | undefined> {
    return this.identities?.of(deploymentId, tenantId) ?? Promise.resolve(undefined);
  }

  /** The URL the deployment's runtime connects with: its own role's, when roles can be made. */
  async databaseUrlOf(deploymentId: string, database: string): Promise<string> {
    if (!this.roles) return withDatabase(this.serverUrl, database);
    return this.roles.grant(deploymentId, database);
  }

  /** The password of the deployment's database role, to keep out of its logs. */
  databasePasswordOf(deploymentId: string): string | undefined {
    return this.roles?.passwordOf(deploymentId);
  }

  async forget(deploymentId: string): Promise<void> {
    await this.roles?.drop(deploymentId);
  }
}
