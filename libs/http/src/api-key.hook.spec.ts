import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { keyDigests, publicPathMatcher, singleKey } from './api-key.hook.js';

const sha256 = (key: string): string => createHash('sha256').update(key).digest('hex');

describe('singleKey', () => {
  it('accepts the key and nothing else', () => {
    const accepts = singleKey('secret-key');
    expect(accepts('secret-key')).toBe(true);
    expect(accepts('secret-key ')).toBe(false);
    expect(accepts('secret-ke')).toBe(false);
    expect(accepts('')).toBe(false);
  });
});

describe('keyDigests', () => {
  it('accepts every key whose SHA-256 digest is listed, and nothing else', () => {
    const accepts = keyDigests([sha256('first-key'), sha256('second-key')]);
    expect(accepts('first-key')).toBe(true);
    expect(accepts('second-key')).toBe(true);
    expect(accepts('third-key')).toBe(false);
    expect(accepts('')).toBe(false);
  });

  it('does not accept a digest presented as the key', () => {
    const digest = sha256('the-key');
    expect(keyDigests([digest])(digest)).toBe(false);
  });

  it('accepts keys with any characters, hashed as UTF-8', () => {
    const key = 'clé-🔑-\u0000-x';
    expect(keyDigests([sha256(key)])(key)).toBe(true);
  });

  it('refuses digests that are not 64 lowercase hex digits, and an empty list', () => {
    const digest = sha256('k');
    expect(() => keyDigests([])).toThrow(/at least one/);
    expect(() => keyDigests([digest.toUpperCase()])).toThrow(/digest 1 is not 64 lowercase hex/);
    expect(() => keyDigests([digest, digest.slice(1)])).toThrow(/digest 2/);
    expect(() => keyDigests([`${digest}0`])).toThrow(/digest 1/);
    expect(() => keyDigests([digest.replace(/.$/, 'g')])).toThrow(/digest 1/);
  });
});

describe('publicPathMatcher', () => {
  const isPublic = publicPathMatcher(['/ok', '/docs', '/docs/*']);

  it('opens the listed paths, with or without a query, and what is below a /* entry', () => {
    expect(isPublic('/ok')).toBe(true);
    expect(isPublic('/ok?probe=1')).toBe(true);
    expect(isPublic('/docs')).toBe(true);
    expect(isPublic('/docs/swagger-ui.css')).toBe(true);
  });

  it('keeps everything else closed, neighbours of the listed paths included', () => {
    expect(isPublic('/ok/more')).toBe(false);
    expect(isPublic('/okay')).toBe(false);
    expect(isPublic('/docsx')).toBe(false);
    expect(isPublic('/threads')).toBe(false);
    expect(isPublic('/threads?x=/docs/')).toBe(false);
  });
});
