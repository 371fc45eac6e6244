import { describe, expect, it } from '@jest/globals';
import { SECRET_MASK, SecretMasker } from './secret-masker.js';

const SECRET = 'sk-Live_4f1d9aZq/+ key';

describe('SecretMasker', () => {
  const masker = new SecretMasker([SECRET, 'abc']);

  it.each([
    ['as is', SECRET],
    ['lower case', SECRET.toLowerCase()],
    ['upper case', SECRET.toUpperCase()],
    ['URL-encoded', encodeURIComponent(SECRET)],
    ['form-encoded', encodeURIComponent(SECRET).replace(/%20/g, '+')],
    ['hex', Buffer.from(SECRET).toString('hex')],
    ['base64', Buffer.from(SECRET).toString('base64')],
    ['base64url', Buffer.from(SECRET).toString('base64url')],
  ])('masks the secret %s', (_, form) => {
    const line = `token=${form}; done`;
    const masked = masker.mask(line);
    expect(masked).not.toContain(form);
    expect(masked).toContain(SECRET_MASK);
    expect(masked.startsWith('token=')).toBe(true);
  });

  it.each([['user:'], ['ab:'], ['x']])(
    'masks it inside base64 of a longer text, after %j, at every alignment',
    (prefix) => {
      const encoded = Buffer.from(`${prefix}${SECRET}`).toString('base64');
      const masked = masker.mask(`Authorization: Basic ${encoded}`);
      expect(masked).toContain(SECRET_MASK);
      expect(
        Buffer.from(masked.slice('Authorization: Basic '.length), 'base64').toString(),
      ).not.toContain(SECRET);
    },
  );

  it('leaves short values and text without secrets alone', () => {
    expect(masker.mask('abc is short; nothing to hide')).toBe('abc is short; nothing to hide');
    expect(new SecretMasker([]).mask('plain')).toBe('plain');
  });
});
