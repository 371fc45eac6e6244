import { describe, expect, it } from '@jest/globals';
import { newDataKey } from './aes-gcm.js';
import { JsonKeyCipher, parseJsonKeys } from './json-keys.js';

describe('LANGGRAPH_AES_JSON_KEYS', () => {
  it('reads a comma-separated list, leaving out blanks, repeats and the system fields', () => {
    expect(parseJsonKeys(' api_key,ssn,, api_key,langgraph_auth_user_id,graph_id')).toEqual([
      'api_key',
      'ssn',
    ]);
    expect(parseJsonKeys(undefined)).toEqual([]);
  });

  it('encrypts the named values at any depth, keeps every key, and opens them again', () => {
    const cipher = new JsonKeyCipher(['api_key', 'ssn'], newDataKey());
    const value = {
      api_key: 'sk-SECRET',
      plain: 'x',
      people: [{ ssn: { digits: '078-05-1120' }, name: 'Ada' }],
    };
    const sealed = cipher.seal(value);
    expect(Object.keys(sealed)).toEqual(['api_key', 'plain', 'people']);
    expect(JSON.stringify(sealed)).not.toMatch(/SECRET|078-05/);
    expect(sealed.plain).toBe('x');
    expect(sealed.people[0]?.name).toBe('Ada');
    expect(cipher.seal(sealed)).toEqual(sealed);
    expect(cipher.open(sealed)).toEqual(value);
    expect(cipher.open(value)).toEqual(value);
  });

  it('names the first encrypted key a filter holds, at any depth', () => {
    const cipher = new JsonKeyCipher(['ssn'], newDataKey());
    expect(cipher.namedIn({ profile: { ssn: '1' } })).toBe('ssn');
    expect(cipher.namedIn({ profile: { city: 'Lima' } })).toBeUndefined();
    expect(new JsonKeyCipher([], newDataKey()).seal({ ssn: '1' })).toEqual({ ssn: '1' });
  });

  it('leaves a value that does not open with its key as it is stored', () => {
    const sealed = new JsonKeyCipher(['ssn'], newDataKey()).seal({ ssn: '1' });
    expect(new JsonKeyCipher(['ssn'], newDataKey()).open(sealed)).toEqual(sealed);
  });
});
