import { describe, expect, it } from '@jest/globals';
import { checkGitSource, isLocalGitSource } from './git-source-policy.js';

describe('git source policy', () => {
  it.each([
    'https://github.com/acme/agent.git',
    'http://git.internal/acme/agent.git',
    'ssh://git@github.com/acme/agent.git',
    'git://git.example.org/agent.git',
    'git@github.com:acme/agent.git',
  ])('takes %s for a remote repository', (url) => {
    expect(isLocalGitSource(url)).toBe(false);
    expect(() => {
      checkGitSource(url, false);
    }).not.toThrow();
  });

  it.each([
    '/srv/repos/agent',
    './agent',
    'file:///srv/repos/agent',
    'FILE:///srv/repos/agent',
    'ext::sh -c touch% /tmp/pwned',
    'https:/missing-slash',
    'C:\\repos\\agent',
  ])('refuses %s unless local sources are allowed', (url) => {
    expect(isLocalGitSource(url)).toBe(true);
    expect(() => {
      checkGitSource(url, false);
    }).toThrow(/BERTH_ALLOW_LOCAL_SOURCES/);
    expect(() => {
      checkGitSource(url, true);
    }).not.toThrow();
  });
});
