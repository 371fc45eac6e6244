import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface ApiKeySource {
  readonly key: string;
  readonly origin: 'environment' | 'generated' | 'data directory' | 'the running platform';
}

/**
 * BERTH_API_KEY when set; otherwise the key kept in the data directory, made the first time
 * (readable by the owner only), so that clients keep working across restarts.
 */
export async function resolveApiKey(
  configured: string | undefined,
  dataDir: string,
): Promise<ApiKeySource> {
  if (configured) return { key: configured, origin: 'environment' };
  const file = join(dataDir, 'api-key');
  const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (kept) return { key: kept, origin: 'data directory' };
  const key = `berth_${randomBytes(24).toString('base64url')}`;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return { key, origin: 'generated' };
}
