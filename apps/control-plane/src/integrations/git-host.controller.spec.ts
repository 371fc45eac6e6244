import { describe, expect, it } from '@jest/globals';
import type { ControlPlaneConfig } from '../control-plane.config.js';
import { checkGitSource } from '../isolation/git-source-policy.js';
import { GitHostIntegrations } from '../tenancy/git-host-integrations.js';
import type { Caller } from '../tenancy/tenant-directory.js';
import { GitHostController } from './git-host.controller.js';
import type { GitPushService } from './git-push.service.js';

const CALLER = { tenant_id: '00000000-0000-4000-8000-000000000001' } as Caller;

function installDetail(allowLocalSources: boolean): string {
  const controller = new GitHostController(
    new GitHostIntegrations(),
    {} as GitPushService,
    { allowLocalSources } as ControlPlaneConfig,
  );
  return controller.install(CALLER).detail;
}

const refused = (repoUrl: string, allowLocal: boolean): boolean => {
  try {
    checkGitSource(repoUrl, allowLocal);
    return false;
  } catch {
    return true;
  }
};

describe('the git_host integration install text', () => {
  it('says what the policy does by default: remote repositories only', () => {
    const detail = installDetail(false);
    expect(refused('/srv/repos/app', false)).toBe(true);
    expect(refused('file:///srv/repos/app', false)).toBe(true);
    expect(detail).toMatch(/local paths and file:\/\/ URLs are refused/);
    expect(detail).toContain('BERTH_ALLOW_LOCAL_SOURCES=true');
    expect(detail).not.toMatch(/any repo_url/);
    for (const remote of ['https://', 'ssh://', 'git://', 'user@host:path']) {
      expect(detail).toContain(remote);
    }
    expect(refused('https://git.example/a.git', false)).toBe(false);
    expect(refused('git@git.example:a.git', false)).toBe(false);
  });

  it('says local paths work only when the operator allows them', () => {
    expect(refused('/srv/repos/app', true)).toBe(false);
    expect(installDetail(true)).toMatch(/allows local sources, a path or file:\/\/ URL/);
  });
});
