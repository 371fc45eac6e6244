import { join } from 'node:path';
import type pg from 'pg';
import { acceptsAnyPassword, withDatabase } from '#libs/database';
import {
  DeploymentDatabaseRoles,
  type DeploymentConnectionLimits,
} from '#libs/deployment-databases';
import { PLATFORM_ROOT, RUNTIME_SCRIPT } from '../platform-paths.js';
import {
  firstUntraversable,
  restrictDataDirectory,
  unreadableByOthers,
} from './data-dir-permissions.js';
import { ControlGroups } from './control-groups.js';
import { findJailNetworkTools } from './jail-network.js';
import { JailSockets } from './jail-sockets.js';
import { findJailTools } from './jail-tools.js';
import { Jailer } from './jailer.js';
import type { JailSettings } from './jail-settings.js';
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
  /** The deployments' roles' CONNECTION LIMIT, and the server's connections they leave alone. */
  readonly connectionLimits: DeploymentConnectionLimits;
  /** The jails' limits and the host's registry of OS ids. */
  readonly jail: JailSettings;
  /** What goes wrong in the background (the database gate process ended, and the like). */
  readonly onError: (error: Error) => void;
}

/** What a deployment's builds and runtime run as, and the database login its runtime uses. */
export class TenantSandbox {
  private constructor(
    /** Why tenants are not sealed from each other here; empty when they are. */
    readonly gaps: readonly string[],
    /** What is not limited here (no control groups), said at start; empty when all is. */
    readonly unlimited: readonly string[],
    private readonly identities: OsIdentities | undefined,
    /** Makes the sandboxes of builds and runtimes; undefined where there can be none. */
    readonly jailer: Jailer | undefined,
    private readonly roles: DeploymentDatabaseRoles | undefined,
    private readonly serverUrl: string,
  ) {}

  /** The PostgreSQL server deployments' databases are on, as the control plane reaches it. */
  get databaseServer(): { host: string; port: number } {
    const server = new URL(this.serverUrl);
    return { host: server.hostname || '127.0.0.1', port: Number(server.port || 5432) };
  }

  static async open(options: SandboxOptions): Promise<TenantSandbox> {
    await restrictDataDirectory(options.dataDir, options.buildsDir);
    const roles = new DeploymentDatabaseRoles(
      options.serverUrl,
      options.roleKey,
      options.connectionLimits,
    );
    const runsAsRoot = process.getuid?.() === 0;
    const tools = runsAsRoot ? await findJailTools() : 'Berth does not run as root';
    const network =
      typeof tools === 'string'
        ? tools
        : options.jail.sharesHostNetwork
          ? 'BERTH_JAIL_NETWORK=host'
          : await findJailNetworkTools(tools.bwrap, options.dataDir);
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
      whyNoJail: typeof tools === 'string' ? tools : undefined,
      whyNoJailNetwork: typeof network === 'string' ? network : undefined,
    };
    const rolesUsed = facts.databaseRoleCanCreateRoles ? roles : undefined;
    await rolesUsed?.sealPlatformDatabase(options.platformUrl);
    const identities = dropsPrivileges(facts)
      ? await OsIdentities.open(options.pool, options.jail.osIdRegistry, options.dataDir)
      : undefined;
    const groups =
      typeof tools === 'string' || !identities
        ? 'no jails'
        : await ControlGroups.open(identities.instanceId.slice(0, 8));
    const sealedNetwork =
      typeof network === 'string' || !identities
        ? undefined
        : {
            tools: network,
            sockets: await JailSockets.open(identities.instanceId.slice(0, 8), options.onError),
          };
    const jailer =
      typeof tools === 'string' || !identities
        ? undefined
        : new Jailer(
            tools,
            typeof groups === 'string' ? undefined : groups,
            options.jail,
            sealedNetwork,
          );
    const unlimited =
      jailer && typeof groups === 'string'
        ? [`builds and runtimes have no memory or process limits: ${groups}`]
        : [];
    return new TenantSandbox(
      sealingGaps(facts),
      unlimited,
      identities,
      jailer,
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

  /** At shutdown, once every build and runtime has ended. */
  async close(): Promise<void> {
    await this.jailer?.close();
  }

  async forget(deploymentId: string): Promise<void> {
    await this.jailer?.forget(deploymentId);
    await this.roles?.drop(deploymentId);
    await this.identities?.release(deploymentId);
  }
}
