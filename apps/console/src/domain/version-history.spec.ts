import { changeLine, changesFrom, versionAuthor } from './version-history';

describe('versionAuthor', () => {
  it('names a user by identity, the platform by its key, and says when nobody was recorded', () => {
    expect(versionAuthor({ kind: 'user', identity: 'alice' })).toBe('alice');
    expect(versionAuthor({ kind: 'platform' })).toBe('the platform (API key)');
    expect(versionAuthor(null)).toBe('not recorded');
    expect(versionAuthor(undefined)).toBe('not recorded');
  });
});

describe('changeLine', () => {
  it('says each kind of change on one line', () => {
    expect(
      changeLine({ field: 'context.model', change: 'modified', from: 'small', to: 'large' }),
    ).toBe('context.model: small → large');
    expect(changeLine({ field: 'metadata.tier', change: 'added', to: 'gold' })).toBe(
      'metadata.tier added: gold',
    );
    expect(changeLine({ field: 'config.tags', change: 'removed', from: ['a'] })).toBe(
      'config.tags removed (was ["a"])',
    );
  });
});

describe('changesFrom', () => {
  it('names the version compared with, the first version, or a server that does not say', () => {
    expect(changesFrom({ previous_version: null, changes: [] })).toBe('first version');
    expect(changesFrom({ previous_version: 1, changes: [] })).toBe('same as version 1');
    expect(
      changesFrom({
        previous_version: 1,
        changes: [{ field: 'name', change: 'modified', from: 'a', to: 'b' }],
      }),
    ).toBe('from version 1');
    expect(changesFrom({})).toBe('not known');
  });
});
