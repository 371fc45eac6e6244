import { describe, expect, it } from '@jest/globals';
import { dropsPrivileges, sealingGaps, type SealingFacts } from './sealing-gaps.js';

const SEALED: SealingFacts = {
  runsAsRoot: true,
  unreadablePlatformPaths: [],
  untraversableDataDirAncestor: undefined,
  databaseTrustsEveryone: false,
  databaseRoleCanCreateRoles: true,
  whyNoJail: undefined,
  whyNoJailNetwork: undefined,
};

describe('sealingGaps', () => {
  it('finds none as root, with Berth readable, passwords required and roles allowed', () => {
    expect(sealingGaps(SEALED)).toEqual([]);
    expect(dropsPrivileges(SEALED)).toBe(true);
  });

  it('names each gap, and privileges are dropped only when the OS allows it', () => {
    const notRoot = { ...SEALED, runsAsRoot: false };
    expect(sealingGaps(notRoot)).toEqual([expect.stringContaining('does not run as root')]);
    expect(dropsPrivileges(notRoot)).toBe(false);

    const unreadable = { ...SEALED, unreadablePlatformPaths: ['/opt/berth'] };
    expect(sealingGaps(unreadable)).toEqual([expect.stringContaining('/opt/berth')]);
    expect(dropsPrivileges(unreadable)).toBe(false);

    const closed = { ...SEALED, untraversableDataDirAncestor: '/srv/private' };
    expect(sealingGaps(closed)).toEqual([expect.stringContaining('/srv/private')]);
    expect(dropsPrivileges(closed)).toBe(false);

    const trusting = { ...SEALED, databaseTrustsEveryone: true };
    expect(sealingGaps(trusting)).toEqual([expect.stringContaining('trust in pg_hba.conf')]);
    expect(dropsPrivileges(trusting)).toBe(true);

    const noJail = { ...SEALED, whyNoJail: 'bubblewrap is not installed' };
    expect(sealingGaps(noJail)).toEqual([expect.stringContaining('cannot be sandboxed')]);
    expect(dropsPrivileges(noJail)).toBe(true);

    const sharedNetwork = { ...SEALED, whyNoJailNetwork: 'slirp4netns is not installed' };
    expect(sealingGaps(sharedNetwork)).toEqual([
      expect.stringMatching(/network is not sealed.*slirp4netns is not installed/),
    ]);
    expect(sealingGaps({ ...noJail, whyNoJailNetwork: 'bubblewrap is not installed' })).toEqual([
      expect.stringContaining('cannot be sandboxed'),
    ]);

    const noRoles = { ...SEALED, databaseRoleCanCreateRoles: false };
    expect(sealingGaps(noRoles)).toEqual([expect.stringContaining('cannot create roles')]);
  });
});
