import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/**
 * AES-256-GCM over bytes, in one self-describing text: `v1.` then base64url of the 12-byte IV,
 * the 16-byte tag and the ciphertext. `context` is bound in as associated data: a box opened
 * under another context (another key's scope, another field) fails.
 */
const VERSION = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

export class DecryptionError extends Error {}

/**
 * Each key's KeyObject, made once: given raw bytes, every cipher made would copy them into a new
 * one (a third of an event's decryption, measured).
 */
const keyObjects = new WeakMap<Buffer, KeyObject>();

function keyObjectOf(key: Buffer): KeyObject {
  let made = keyObjects.get(key);
  if (!made) {
    made = createSecretKey(key);
    keyObjects.set(key, made);
  }
  return made;
}

export function encryptBytes(key: Buffer, plaintext: Buffer, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyObjectOf(key), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

export function decryptBytes(key: Buffer, box: string, context: string): Buffer {
  if (!box.startsWith(VERSION)) throw new DecryptionError('not an encrypted value of version v1');
  const bytes = Buffer.from(box.slice(VERSION.length), 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new DecryptionError('the value is damaged');
  const decipher = createDecipheriv('aes-256-gcm', keyObjectOf(key), bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    const opened = decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES));
    const rest = decipher.final();
    return rest.length === 0 ? opened : Buffer.concat([opened, rest]);
  } catch {
    throw new DecryptionError('the value does not open with this key and context');
  }
}

export function newDataKey(): Buffer {
  return randomBytes(KEY_BYTES);
}
