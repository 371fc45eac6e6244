import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/**
 * Sealed boxes: a value sealed for the holder of an X25519 key pair, which only its private key
 * opens. Each seal makes a key pair of its own; the shared secret of its private key and the
 * recipient's public key, through HKDF-SHA256 with the seal's context, keys AES-256-GCM. The
 * context (what the value is, and for whom) is bound in: a box opened under another fails.
 */
const VERSION = 'x25519-hkdf-aes256gcm-v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealingKeys {
  /** SPKI, PEM: what the control plane seals for. */
  readonly publicKey: string;
  /** PKCS #8, PEM: kept by its holder alone. */
  readonly privateKey: string;
}

export class SealedBoxError extends Error {}

export function generateSealingKeys(): SealingKeys {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

function publicKeyOf(pem: string): KeyObject {
  // A private key would do too (its public half is derived): never take one where a public goes.
  if (!pem.trimStart().startsWith('-----BEGIN PUBLIC KEY-----')) {
    throw new SealedBoxError('not a public key in PEM (-----BEGIN PUBLIC KEY-----)');
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new SealedBoxError('not a public key in PEM');
  }
  if (key.asymmetricKeyType !== 'x25519') throw new SealedBoxError('not an X25519 public key');
  return key;
}

/** Whether `pem` is an X25519 public key that values can be sealed for. */
export function isSealingPublicKey(pem: string): boolean {
  try {
    publicKeyOf(pem);
    return true;
  } catch {
    return false;
  }
}

const rawOf = (key: KeyObject): Buffer =>
  Buffer.from(key.export({ format: 'jwk' }).x ?? '', 'base64url');

function keyFor(secret: Buffer, ephemeral: Buffer, recipient: Buffer, context: string): Buffer {
  const salt = Buffer.concat([ephemeral, recipient]);
  return Buffer.from(hkdfSync('sha256', secret, salt, `${VERSION}\0${context}`, 32));
}

/** `plaintext` sealed for the holder of `publicKeyPem`, under `context`. */
export function sealFor(publicKeyPem: string, plaintext: string, context: string): string {
  const recipient = publicKeyOf(publicKeyPem);
  const ephemeral = generateKeyPairSync('x25519');
  const secret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient });
  const ephemeralRaw = rawOf(ephemeral.publicKey);
  const key = keyFor(secret, ephemeralRaw, rawOf(recipient), context);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, ephemeralRaw, iv, cipher.getAuthTag(), sealed]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** What `sealFor` sealed, opened with the recipient's private key under the same `context`. */
export function openSealed(privateKeyPem: string, box: string, context: string): string {
  const [version, ephemeralText, ivText, tagText, sealedText] = box.split('.');
  if (version !== VERSION || sealedText === undefined) {
    throw new SealedBoxError(`not a sealed box of ${VERSION}`);
  }
  const privateKey = createPrivateKey(privateKeyPem);
  const ephemeralRaw = Buffer.from(ephemeralText ?? '', 'base64url');
  const ephemeral = createPublicKey({
    key: { kty: 'OKP', crv: 'X25519', x: ephemeralRaw.toString('base64url') },
    format: 'jwk',
  });
  const secret = diffieHellman({ privateKey, publicKey: ephemeral });
  const key = keyFor(secret, ephemeralRaw, rawOf(createPublicKey(privateKey)), context);
  const tag = Buffer.from(tagText ?? '', 'base64url');
  if (tag.length !== TAG_BYTES) throw new SealedBoxError('the box is damaged');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText ?? '', 'base64url'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([
      decipher.update(Buffer.from(sealedText, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SealedBoxError('the box does not open with this key and context');
  }
}
