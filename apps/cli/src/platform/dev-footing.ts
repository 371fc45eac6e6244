import type { CliEnvironment } from '../cli.config.js';
import { runningPlatforms, type PlatformRecord } from './platform-record.js';

/** Where `berth dev` takes its PostgreSQL and API key from, and the sentence that says so. */
export type DevFooting =
  | { readonly kind: 'configured'; readonly said: string }
  | { readonly kind: 'platform'; readonly platform: PlatformRecord; readonly said: string }
  | { readonly kind: 'own'; readonly said: string };

/**
 * One rule from every directory: DATABASE_URL or BERTH_DATA_DIR when given; else the platform
 * running on this machine (`npm start`), found where it records itself; else Berth's own data
 * directory, never the application's.
 */
export async function chooseDevFooting(env: CliEnvironment): Promise<DevFooting> {
  if (env.databaseUrl) {
    return { kind: 'configured', said: 'Using the PostgreSQL at DATABASE_URL.' };
  }
  if (env.dataDirConfigured) {
    return {
      kind: 'configured',
      said: `Using the data directory ${env.dataDir} (BERTH_DATA_DIR).`,
    };
  }
  const [platform] = await runningPlatforms(env.platformRecordsDir);
  if (platform) {
    return {
      kind: 'platform',
      platform,
      said:
        `Beside the Berth platform running in ${platform.dataDir} (control plane ` +
        `${platform.controlPlaneUrl}, pid ${platform.pid}): sharing its API key and PostgreSQL.`,
    };
  }
  return {
    kind: 'own',
    said:
      `No Berth platform is running: using Berth's data directory ${env.dataDir} ` +
      '(its own PostgreSQL and API key).',
  };
}
