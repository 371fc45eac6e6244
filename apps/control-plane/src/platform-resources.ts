import { openPersistence, type AnyProjection, type Persistence } from '#libs/persistence';
import type { ControlPlaneConfig } from './control-plane.config.js';
import { STREAM_CATALOG_MIGRATIONS } from './stream-catalog/stream-catalog.migrations.js';
import { streamCatalogProjection } from './stream-catalog/stream-catalog.projection.js';

export const PROJECTIONS: readonly AnyProjection[] = [streamCatalogProjection];

export type PlatformResources = Persistence;

export interface OpenOptions {
  readonly onError: (error: unknown) => void;
}

/** The control plane's database, event log and read models. */
export function openPlatformResources(
  config: ControlPlaneConfig,
  options: OpenOptions,
): Promise<PlatformResources> {
  return openPersistence({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    eventStoreUrl: config.eventStoreUrl,
    migrations: STREAM_CATALOG_MIGRATIONS,
    projections: PROJECTIONS,
    onError: options.onError,
  });
}
