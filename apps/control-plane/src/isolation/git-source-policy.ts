import { badRequest } from '#libs/domain';

/** The protocols git may use for a tenant's repository unless local sources are allowed. */
export const REMOTE_GIT_PROTOCOLS = 'https:http:ssh:git';

const REMOTE_URL = /^(https?|ssh|git):\/\/[^/]/i;
/** `user@host:path`, git's short form of ssh. */
const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!\/\/)/;

/** Whether the repository is on this machine (a path or file://), and so reads the platform's disk. */
export function isLocalGitSource(repoUrl: string): boolean {
  return !(REMOTE_URL.test(repoUrl) || SCP_LIKE.test(repoUrl));
}

/** Refuses a local repository unless the operator allows them (BERTH_ALLOW_LOCAL_SOURCES). */
export function checkGitSource(repoUrl: string | null | undefined, allowLocal: boolean): void {
  if (allowLocal || typeof repoUrl !== 'string' || !isLocalGitSource(repoUrl)) return;
  throw badRequest(
    'source_config.repo_url must be a remote repository (https://, ssh://, git:// or user@host:path): ' +
      'local paths and file:// URLs are refused unless the operator sets BERTH_ALLOW_LOCAL_SOURCES=true',
  );
}
