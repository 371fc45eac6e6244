import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { KEY_BYTES, seal, unseal } from './sealing.js';

describe('seal / unseal', () => {
  const key = randomBytes(KEY_BYTES);

  it('opens what it sealed, in the same context', () => {
    const sealed = seal(key, 'p@ssw0rd – ünïcode', 'deployment-1/API_KEY');

    expect(sealed).not.toContain('p@ssw0rd');
    expect(unseal(key, sealed, 'deployment-1/API_KEY')).toBe('p@ssw0rd – ünïcode');
  });

  it('round-trips an empty value', () => {
    expect(unseal(key, seal(key, '', 'ctx'), 'ctx')).toBe('');
  });

  it('refuses to open in another context', () => {
    const sealed = seal(key, 'value', 'deployment-1/API_KEY');

    expect(() => unseal(key, sealed, 'deployment-2/API_KEY')).toThrow();
  });

  it('refuses to open with another key', () => {
    const sealed = seal(key, 'value', 'ctx');

    expect(() => unseal(randomBytes(KEY_BYTES), sealed, 'ctx')).toThrow();
  });

  it('refuses a tampered value', () => {
    const bytes = Buffer.from(seal(key, 'value', 'ctx'), 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0x01;

    expect(() => unseal(key, bytes.toString('base64'), 'ctx')).toThrow();
  });

  it('seals the same value differently each time', () => {
    const first = seal(key, 'value', 'ctx');
    const second = seal(key, 'value', 'ctx');

    expect(first).not.toBe(second);
    expect(unseal(key, first, 'ctx')).toBe('value');
    expect(unseal(key, second, 'ctx')).toBe('value');
  });
});
