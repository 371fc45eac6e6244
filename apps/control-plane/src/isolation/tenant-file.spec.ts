import { describe, expect, it } from '@jest/globals';
import {
  pathComponents,
  refusalOfError,
  refusalOfStats,
  refused,
  type TenantFileLimits,
} from './tenant-file.js';

const LIMITS: TenantFileLimits = { maxBytes: 100 };

const statsOf = (kind: 'file' | 'other', size = 10, uid = 1000) => ({
  isFile: () => kind === 'file',
  size,
  uid,
});

describe('the rules for reading a file of a tenant tree', () => {
  it('walks a relative path name by name, and refuses one that could leave its root', () => {
    expect(pathComponents('package.json')).toEqual(['package.json']);
    expect(pathComponents('./apps//agent/langgraph.json')).toEqual([
      'apps',
      'agent',
      'langgraph.json',
    ]);
    expect(pathComponents('../etc/passwd')).toBeUndefined();
    expect(pathComponents('apps/../../x')).toBeUndefined();
    expect(pathComponents('/etc/passwd')).toBeUndefined();
    expect(pathComponents('.')).toBeUndefined();
  });

  it('reads a failed open as missing, a link or no file; anything else is not the tree', () => {
    expect(refusalOfError('ENOENT')).toBe('missing');
    expect(refusalOfError('ENOTDIR')).toBe('missing');
    expect(refusalOfError('ELOOP')).toBe('link');
    expect(refusalOfError('ENXIO')).toBe('not_a_file');
    expect(refusalOfError('EISDIR')).toBe('not_a_file');
    expect(refusalOfError('EMFILE')).toBeUndefined();
  });

  it('reads only a regular file of the owner asked for, up to the cap', () => {
    expect(refusalOfStats(statsOf('file'), LIMITS)).toBeUndefined();
    expect(refusalOfStats(statsOf('other'), LIMITS)).toBe('not_a_file');
    expect(refusalOfStats(statsOf('file', 101), LIMITS)).toBe('too_large');
    expect(refusalOfStats(statsOf('file', 100), LIMITS)).toBeUndefined();
    expect(refusalOfStats(statsOf('file', 10, 0), { ...LIMITS, ownerUid: 1000 })).toBe('not_owned');
    expect(
      refusalOfStats(statsOf('file', 10, 1000), { ...LIMITS, ownerUid: 1000 }),
    ).toBeUndefined();
  });

  it('says which file was not read and why', () => {
    expect(refused('package.json', 'link', LIMITS).reason).toBe(
      'package.json is (or lies under) a symbolic link, which the platform never follows: not read',
    );
    expect(refused('pnpm-lock.yaml', 'too_large', LIMITS).reason).toBe(
      'pnpm-lock.yaml is larger than 100 bytes: not read',
    );
    expect(refused('package.json', 'timed_out', { ...LIMITS, timeoutMs: 250 })).toMatchObject({
      ok: false,
      refusal: 'timed_out',
      reason: 'package.json could not be read within 250 ms: not read',
    });
  });
});
