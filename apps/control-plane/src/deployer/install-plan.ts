import { createHash } from 'node:crypto';
import { detectInstall, LOCKFILE_INSTALLS } from '#libs/install-commands';
import { readTenantFile, type TenantFileLimits } from '../isolation/tenant-file.js';

export type InstallPlan = {
  /** Undefined when there is nothing to install (no package.json and no install command). */
  command: string | undefined;
  /** Why this command, for the build log. */
  reason: string;
  /** Same key, same dependencies: the installed node_modules can be reused. */
  cacheKey: string;
};

const MANIFEST_MAX_BYTES = 1024 * 1024;
const LOCKFILE_MAX_BYTES = 32 * 1024 * 1024;

/** A source's file the plan depends on; undefined when absent, an error when it is not read. */
async function read(
  root: string,
  file: string,
  limits: TenantFileLimits,
): Promise<Buffer | undefined> {
  const read = await readTenantFile(root, file, limits);
  if (read.ok) return read.content;
  if (read.refusal === 'missing') return undefined;
  throw new Error(`${read.reason} (the platform reads only regular files of the source)`);
}

/**
 * The install command (given, or detected from the lockfile) and the key of its result. The
 * source's package.json and lockfiles are read as tenant-file.ts reads a tenant's files: one that
 * is a link, not a regular file of `ownerUid`'s or over its cap fails the build.
 */
export async function planInstall(
  root: string,
  configured: string | null,
  ownerUid?: number,
): Promise<InstallPlan> {
  const manifest = await read(root, 'package.json', { maxBytes: MANIFEST_MAX_BYTES, ownerUid });
  const hash = createHash('sha256')
    .update(process.version)
    .update('\0')
    .update(manifest ?? '');
  const present = new Set(manifest === undefined ? [] : ['package.json']);
  for (const [file] of LOCKFILE_INSTALLS) {
    const content = await read(root, file, { maxBytes: LOCKFILE_MAX_BYTES, ownerUid });
    if (content === undefined) continue;
    present.add(file);
    hash.update('\0').update(file).update('\0').update(content);
  }
  const detected = detectInstall((file) => present.has(file));
  const command = configured ?? detected?.command;
  const reason = configured
    ? 'install_command'
    : (detected?.reason ?? 'no package.json: nothing to install');
  hash.update('\0').update(command ?? '');
  return { command, reason, cacheKey: hash.digest('hex').slice(0, 32) };
}
