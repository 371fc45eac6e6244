import { join } from 'node:path';
import { openPersistence, type AnyProjection, type Persistence } from '#libs/persistence';
import type { ControlPlaneConfig } from './control-plane.config.js';
import { DEPLOYMENT_MIGRATIONS } from './deployments/read-model/deployment.entity.js';
import { deploymentsProjection } from './deployments/read-model/deployments.projection.js';
import { LISTENER_MIGRATIONS } from './listeners/listener.entity.js';
import { listenersProjection } from './listeners/listeners.projection.js';
import { deriveKey, loadMasterKey } from './secrets/master-key.js';
import { SECRET_VAULT_MIGRATIONS, SecretVault } from './secrets/secret-vault.js';
import { STREAM_CATALOG_MIGRATIONS } from './stream-catalog/stream-catalog.migrations.js';
import { streamCatalogProjection } from './stream-catalog/stream-catalog.projection.js';
import { OS_IDENTITY_MIGRATIONS } from './isolation/os-identities.js';
import { TenantSandbox } from './isolation/tenant-sandbox.js';
import { TenantDirectory } from './tenancy/tenant-directory.js';
import { TRACING_MIGRATIONS } from './tracing/tracing.entities.js';
import { tracingProjectsProjection } from './tracing/tracing-projects.projection.js';
import { TracingTokens } from './tracing/tracing.service.js';
import { UploadStore } from './uploads/upload-store.js';
import { WebSocketCourier } from './deployer/websocket-courier.js';

export const PROJECTIONS: readonly AnyProjection[] = [
  streamCatalogProjection,
  deploymentsProjection,
  listenersProjection,
  tracingProjectsProjection,
] as AnyProjection[];

/** The control plane's database, event log, read models and the keys and stores beside them. */
export type PlatformResources = Persistence & {
  readonly config: ControlPlaneConfig;
  readonly vault: SecretVault;
  readonly uploads: UploadStore;
  readonly tracingTokens: TracingTokens;
  readonly tenants: TenantDirectory;
  readonly sandbox: TenantSandbox;
  /** Holds every WebSocket let through to a runtime (see WebSocketCourier). */
  readonly courier: WebSocketCourier;
  /** Tenants whose keys are refused because tenants cannot be sealed here (see TenantSandbox). */
  readonly refusedTenants: readonly string[];
};

export interface OpenOptions {
  readonly onError: (error: unknown) => void;
}

export async function openPlatformResources(
  config: ControlPlaneConfig,
  options: OpenOptions,
): Promise<PlatformResources> {
  const persistence = await openPersistence({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    eventStoreUrl: config.eventStoreUrl,
    migrations: [
      ...STREAM_CATALOG_MIGRATIONS,
      ...DEPLOYMENT_MIGRATIONS,
      ...LISTENER_MIGRATIONS,
      ...TRACING_MIGRATIONS,
      ...SECRET_VAULT_MIGRATIONS,
      ...OS_IDENTITY_MIGRATIONS,
    ],
    projections: PROJECTIONS,
    onError: options.onError,
  });
  try {
    const masterKey = await loadMasterKey(config.secretsKey, config.dataDir);
    const sandbox = await TenantSandbox.open({
      dataDir: config.dataDir,
      buildsDir: buildsDirectory(config),
      pool: persistence.pool,
      serverUrl: persistence.database.url,
      platformUrl: persistence.database.url,
      roleKey: deriveKey(masterKey, 'database-role'),
      connectionLimits: {
        perDeployment: config.limits.deploymentDbConnections,
        reservedForPlatform: config.limits.dbReservedConnections,
      },
      jail: config.jail,
      onError: options.onError,
    });
    const refusedTenants = refusedTenantsOf(config, sandbox);
    const courier = new WebSocketCourier((error) => {
      options.onError(error);
    });
    return {
      ...persistence,
      config,
      vault: new SecretVault(persistence.pool, masterKey),
      uploads: new UploadStore(config.dataDir, deriveKey(masterKey, 'upload-url')),
      tracingTokens: new TracingTokens(deriveKey(masterKey, 'tracing-token')),
      tenants: new TenantDirectory(config.tenantKeys, refusedTenants),
      sandbox,
      courier,
      refusedTenants,
      // The jails' sockets and control groups go first: the builds and runtimes have ended.
      close: async () => {
        await courier.stop();
        await sandbox.close();
        await persistence.close();
      },
    };
  } catch (error) {
    await persistence.close();
    throw error;
  }
}

export const buildsDirectory = (config: ControlPlaneConfig): string =>
  join(config.dataDir, 'builds');

/** Unless the operator accepts it, an unsealed Berth serves the first tenant configured only. */
function refusedTenantsOf(config: ControlPlaneConfig, sandbox: TenantSandbox): string[] {
  if (sandbox.sealed || config.allowUnsealedTenants) return [];
  const tenants = [...new Set(config.tenantKeys.map((entry) => entry.tenantId))];
  return tenants.slice(1);
}
