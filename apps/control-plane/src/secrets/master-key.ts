import { hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KEY_BYTES } from './sealing.js';

/**
 * BERTH_SECRETS_KEY when configured (every replica must share it); otherwise a key made once and
 * kept in the data directory, readable by its owner only.
 */
export async function loadMasterKey(
  configured: Buffer | undefined,
  dataDir: string,
): Promise<Buffer> {
  if (configured) return configured;
  const file = join(dataDir, 'secrets.key');
  const kept = await readFile(file, 'utf8').catch(() => '');
  if (kept.trim()) return Buffer.from(kept.trim(), 'base64');
  const key = randomBytes(KEY_BYTES);
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' }).catch(
    (error: unknown) => {
      // Another process made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    },
  );
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
}

/** An independent key for one purpose (signing upload URLs, tracing tokens), from the master key. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `berth:${purpose}`, KEY_BYTES));
}
