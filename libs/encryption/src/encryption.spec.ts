import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decryptBytes, DecryptionError, encryptBytes, newDataKey } from './aes-gcm.js';
import { DataKeyCache } from './data-key-cache.js';
import { ForeignMasterKeyError, rewrapDataKey, unwrapDataKey, wrapDataKey } from './key-wrap.js';
import {
  keyFileIn,
  MasterKeyError,
  parseBerthMasterKey,
  parseLanggraphAesKey,
  resolveMasterKey,
} from './master-key.js';
import { openFields, sealedPartOf, sealFields, skeletonOf } from './sealed-fields.js';

const HEX_KEY = 'ab'.repeat(32);

describe('AES-256-GCM boxes', () => {
  it('open with the key and context they were made with, and with no other', () => {
    const key = newDataKey();
    const box = encryptBytes(key, Buffer.from('4111-SECRET-1111'), 'thread:1');
    expect(box).not.toContain('SECRET');
    expect(decryptBytes(key, box, 'thread:1').toString()).toBe('4111-SECRET-1111');
    expect(() => decryptBytes(key, box, 'thread:2')).toThrow(DecryptionError);
    expect(() => decryptBytes(newDataKey(), box, 'thread:1')).toThrow(DecryptionError);
    expect(() => decryptBytes(key, 'v2.abc', 'thread:1')).toThrow(DecryptionError);
  });

  it('never give the same text twice for the same value', () => {
    const key = newDataKey();
    expect(encryptBytes(key, Buffer.from('x'), 'c')).not.toBe(
      encryptBytes(key, Buffer.from('x'), 'c'),
    );
  });
});

describe('the master key', () => {
  it('is read from BERTH_MASTER_KEY as hex or base64 of 32 bytes', () => {
    const bytes = Buffer.from(HEX_KEY, 'hex');
    expect(parseBerthMasterKey(HEX_KEY)).toEqual(bytes);
    expect(parseBerthMasterKey(bytes.toString('base64'))).toEqual(bytes);
    expect(parseBerthMasterKey(bytes.toString('base64url'))).toEqual(bytes);
    expect(() => parseBerthMasterKey('short')).toThrow(MasterKeyError);
    expect(() => parseBerthMasterKey(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });

  it('takes LANGGRAPH_AES_KEY of 16, 24 or 32 bytes, as the hosted server does', () => {
    for (const length of [16, 24, 32]) {
      expect(parseLanggraphAesKey('k'.repeat(length))).toHaveLength(length);
    }
    expect(() => parseLanggraphAesKey('k'.repeat(20))).toThrow(/16, 24 or 32 bytes long, it is 20/);
  });

  it('prefers BERTH_MASTER_KEY, then LANGGRAPH_AES_KEY; its id names it, not its bytes', async () => {
    const keyFile = join(await mkdtemp(join(tmpdir(), 'master-')), 'master-key');
    const berth = await resolveMasterKey({
      berthMasterKey: HEX_KEY,
      langgraphAesKey: 'k'.repeat(16),
      keyFile,
    });
    expect(berth.source).toBe('BERTH_MASTER_KEY');
    expect(berth.id).toMatch(/^[0-9a-f]{16}$/);
    expect(berth.key.toString('hex')).not.toBe(HEX_KEY);
    const hosted = await resolveMasterKey({ langgraphAesKey: 'k'.repeat(16), keyFile });
    expect(hosted.source).toBe('LANGGRAPH_AES_KEY');
    expect(hosted.id).not.toBe(berth.id);
    await expect(stat(keyFile)).rejects.toThrow();
  });

  it('is generated once into the data directory, readable by its owner only', async () => {
    const keyFile = keyFileIn(await mkdtemp(join(tmpdir(), 'master-')));
    const made = await resolveMasterKey({ keyFile });
    expect(made.source).toBe('generated key file');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(keyFile, 'utf8')).trim(), 'base64')).toHaveLength(32);
    const again = await resolveMasterKey({ keyFile });
    expect(again.source).toBe('key file');
    expect(again.id).toBe(made.id);
  });
});

describe('data keys wrapped by the master key', () => {
  it('unwrap under the master key, key id and scope they were wrapped with', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'master-'));
    const master = await resolveMasterKey({ keyFile: keyFileIn(dir) });
    const other = await resolveMasterKey({ berthMasterKey: HEX_KEY, keyFile: keyFileIn(dir) });
    const dataKey = newDataKey();
    const wrapped = wrapDataKey(master, 'k1', 'thread:1', dataKey);
    expect(wrapped.wrapped).not.toContain(dataKey.toString('base64url'));
    expect(unwrapDataKey(master, wrapped)).toEqual(dataKey);
    expect(() => unwrapDataKey(other, wrapped)).toThrow(ForeignMasterKeyError);
    expect(() => unwrapDataKey(master, { ...wrapped, scope: 'thread:2' })).toThrow(DecryptionError);

    const rotated = rewrapDataKey(master, other, wrapped);
    expect(rotated.masterKeyId).toBe(other.id);
    expect(unwrapDataKey(other, rotated)).toEqual(dataKey);
  });
});

describe('sealed fields', () => {
  const isClear = (field: string): boolean => field.endsWith('_id');

  it('keep the clear fields readable and the others in one encrypted field', () => {
    const key = newDataKey();
    const data = { run_id: 'r1', input: { text: '4111-SECRET-1111' }, n: 3 };
    const sealed = sealFields(data, isClear, 'k1', key);
    expect(JSON.stringify(sealed)).not.toContain('SECRET');
    expect(sealed['run_id']).toBe('r1');
    const part = sealedPartOf(sealed);
    expect(part?.key_id).toBe('k1');
    expect(part?.bytes).toBe(Buffer.byteLength(JSON.stringify({ input: data.input, n: 3 })));
    if (!part) throw new Error('no sealed part');
    expect(openFields(sealed, part, key)).toEqual(data);
    expect(skeletonOf(sealed)).toEqual({ run_id: 'r1' });
  });

  it('leave data with nothing to hide as it is', () => {
    const data = { run_id: 'r1' };
    expect(sealFields(data, isClear, 'k1', newDataKey())).toBe(data);
    expect(sealedPartOf(data)).toBeUndefined();
    const always = sealFields(data, isClear, 'k1', newDataKey(), true);
    expect(sealedPartOf(always)?.bytes).toBe(2);
  });
});

describe('the cache of unwrapped keys', () => {
  it('keeps the most recently used keys, forgets a scope, and looks old entries up again', () => {
    let now = 0;
    const cache = new DataKeyCache(2, 1_000, () => now);
    const key = newDataKey();
    cache.set('a', 'thread:1', key);
    cache.set('b', 'thread:2', key);
    expect(cache.get('a')).toBe(key);
    cache.set('c', 'thread:3', key);
    expect(cache.get('b')).toBeUndefined();
    cache.forgetScope('thread:1');
    expect(cache.get('a')).toBeUndefined();
    now = 2_000;
    expect(cache.get('c')).toBeUndefined();
  });
});
