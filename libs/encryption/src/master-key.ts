import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KEY_BYTES } from './aes-gcm.js';

/**
 * The key that wraps every data key. Only its derived wrapping key and its id leave this file:
 * the material it came from is never kept.
 */
export interface MasterKey {
  /** 32 bytes, derived with HKDF-SHA256 from what was configured. */
  readonly key: Buffer;
  /** 16 hex digits naming the key (an HMAC of it), stored beside each data key it wraps. */
  readonly id: string;
  /** Where it came from, to say so at start (never the key itself). */
  readonly source: 'BERTH_MASTER_KEY' | 'LANGGRAPH_AES_KEY' | 'key file' | 'generated key file';
}

export class MasterKeyError extends Error {}

export const MASTER_KEY_FILE = 'master-key';

export interface MasterKeySources {
  /** 32 bytes, as 64 hex digits or base64 (standard or URL-safe). */
  readonly berthMasterKey?: string | undefined;
  /** The hosted server's variable: its text is the key, 16, 24 or 32 bytes long. */
  readonly langgraphAesKey?: string | undefined;
  /** Where the key is kept (and generated the first time) when neither variable is set. */
  readonly keyFile: string;
}

export function keyFileIn(dataDir: string): string {
  return join(dataDir, MASTER_KEY_FILE);
}

function derived(material: Buffer, source: MasterKey['source']): MasterKey {
  const key = Buffer.from(hkdfSync('sha256', material, '', 'berth master key v1', KEY_BYTES));
  const id = createHmac('sha256', key).update('berth master key id').digest('hex').slice(0, 16);
  return { key, id, source };
}

/** BERTH_MASTER_KEY's text: 64 hex digits, or base64 of 32 bytes. */
export function parseBerthMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)
    ? Buffer.from(trimmed, /[-_]/.test(trimmed) ? 'base64url' : 'base64')
    : Buffer.alloc(0);
  if (bytes.length !== KEY_BYTES) {
    throw new MasterKeyError(
      'BERTH_MASTER_KEY must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)',
    );
  }
  return bytes;
}

/** LANGGRAPH_AES_KEY's text, taken as the hosted server takes it: its bytes are the key. */
export function parseLanggraphAesKey(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (![16, 24, 32].includes(bytes.length)) {
    throw new MasterKeyError(
      `LANGGRAPH_AES_KEY must be 16, 24 or 32 bytes long, it is ${bytes.length}`,
    );
  }
  return bytes;
}

/**
 * BERTH_MASTER_KEY, else LANGGRAPH_AES_KEY, else the key file (base64 of 32 bytes), generated
 * the first time readable by its owner only, as the API key is.
 */
export async function resolveMasterKey(sources: MasterKeySources): Promise<MasterKey> {
  if (sources.berthMasterKey) {
    return derived(parseBerthMasterKey(sources.berthMasterKey), 'BERTH_MASTER_KEY');
  }
  if (sources.langgraphAesKey) {
    return derived(parseLanggraphAesKey(sources.langgraphAesKey), 'LANGGRAPH_AES_KEY');
  }
  const kept = await readKeyFile(sources.keyFile);
  if (kept) return derived(kept, 'key file');
  await mkdir(dirname(sources.keyFile), { recursive: true });
  try {
    await writeFile(sources.keyFile, `${randomBytes(KEY_BYTES).toString('base64')}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
  } catch (error) {
    // Another process made it first: its key is the one.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const made = await readKeyFile(sources.keyFile);
  if (!made) throw new MasterKeyError(`The master key file ${sources.keyFile} is empty`);
  return derived(made, 'generated key file');
}

async function readKeyFile(file: string): Promise<Buffer | undefined> {
  const text = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (!text) return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== KEY_BYTES) {
    throw new MasterKeyError(`The master key file ${file} does not hold base64 of 32 bytes`);
  }
  return bytes;
}
