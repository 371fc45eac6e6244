import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import {
  CustomKeyWrapper,
  runWithEncryptionMetadata,
  type EncryptionContext,
} from './custom-encryption.js';

/** A KMS whose "version" is the first byte of what it encrypts; it records the contexts. */
function versionedKms(version: { current: number }, seen: string[]): CustomKeyWrapper {
  const note = (op: string, ctx: EncryptionContext): void => {
    seen.push(`${op} ${ctx.model ?? ''} ${ctx.field ?? ''} ${JSON.stringify(ctx.metadata)}`);
  };
  return new CustomKeyWrapper({
    encrypt: {
      blob: (ctx, data) => {
        note(`encrypt v${version.current}`, ctx);
        return Promise.resolve(Buffer.concat([Buffer.from([version.current]), data]));
      },
    },
    decrypt: {
      blob: (ctx, data) => {
        note(`decrypt v${data[0] ?? 0}`, ctx);
        return Promise.resolve(Buffer.from(data).subarray(1));
      },
    },
  });
}

describe('CustomKeyWrapper.rewrap', () => {
  it('opens a key and wraps it again with the context it was wrapped with, outside any request', async () => {
    const version = { current: 1 };
    const seen: string[] = [];
    const kms = versionedKms(version, seen);
    const dataKey = randomBytes(32);
    const wrapped = await runWithEncryptionMetadata({ tenant: 'acme' }, () =>
      kms.wrap('k1', 'thread:t1', dataKey),
    );
    version.current = 2;
    const rewrapped = await kms.rewrap({
      keyId: 'k1',
      scope: 'thread:t1',
      masterKeyId: kms.id,
      wrapped,
    });
    expect(rewrapped).not.toBe(wrapped);
    const opened = await kms.unwrap({
      keyId: 'k1',
      scope: 'thread:t1',
      masterKeyId: kms.id,
      wrapped: rewrapped,
    });
    expect(opened).toEqual(dataKey);
    expect(seen).toEqual([
      'encrypt v1 thread data_key {"tenant":"acme"}',
      'decrypt v1 thread data_key {"tenant":"acme"}',
      'encrypt v2 thread data_key {"tenant":"acme"}',
      'decrypt v2 thread data_key {"tenant":"acme"}',
    ]);
  });
});
