import { describe, expect, it } from '@jest/globals';
import {
  generateSealingKeys,
  isSealingPublicKey,
  openSealed,
  sealFor,
  SealedBoxError,
} from './sealed-box.js';

describe('sealed boxes', () => {
  const keys = generateSealingKeys();

  it('opens what was sealed for its key, under the same context', () => {
    const box = sealFor(keys.publicKey, 'sk-live-1234 ünïcode', 'deployment d1 revision r1');
    expect(box).not.toContain('sk-live');
    expect(openSealed(keys.privateKey, box, 'deployment d1 revision r1')).toBe(
      'sk-live-1234 ünïcode',
    );
  });

  it('seals the same value differently each time', () => {
    expect(sealFor(keys.publicKey, 'v', 'c')).not.toBe(sealFor(keys.publicKey, 'v', 'c'));
  });

  it('does not open under another context, another key, or once altered', () => {
    const box = sealFor(keys.publicKey, 'value', 'deployment d1');
    expect(() => openSealed(keys.privateKey, box, 'deployment d2')).toThrow(SealedBoxError);
    expect(() => openSealed(generateSealingKeys().privateKey, box, 'deployment d1')).toThrow(
      SealedBoxError,
    );
    const parts = box.split('.');
    const sealed = Buffer.from(parts[4] ?? '', 'base64url');
    sealed[0] = (sealed[0] ?? 0) ^ 1;
    parts[4] = sealed.toString('base64url');
    expect(() => openSealed(keys.privateKey, parts.join('.'), 'deployment d1')).toThrow(
      SealedBoxError,
    );
    expect(() => openSealed(keys.privateKey, 'plain text', 'deployment d1')).toThrow(
      SealedBoxError,
    );
  });

  it('takes X25519 public keys only', () => {
    expect(isSealingPublicKey(keys.publicKey)).toBe(true);
    expect(isSealingPublicKey(keys.privateKey)).toBe(false);
    expect(isSealingPublicKey('-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----')).toBe(
      false,
    );
    expect(() => sealFor('not a key', 'v', 'c')).toThrow(SealedBoxError);
  });
});
