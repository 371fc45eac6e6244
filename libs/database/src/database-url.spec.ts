import { describe, expect, it } from '@jest/globals';
import { describeDatabaseUrl } from './database-url.js';

describe('describeDatabaseUrl', () => {
  it('says which database on which server, never the credentials', () => {
    const said = describeDatabaseUrl('postgres://postgres:s3cr%3Et@127.0.0.1:54329/berth');
    expect(said).toBe('berth on 127.0.0.1:54329');
    expect(said).not.toContain('s3cr');
  });

  it('names the default database and a URL it cannot read', () => {
    expect(describeDatabaseUrl('postgres://db.internal:5432')).toBe('postgres on db.internal:5432');
    expect(describeDatabaseUrl('not a url')).toBe('DATABASE_URL');
  });
});
