import { constants } from 'node:fs';
import { lstat, open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import type { SourceFile, SourceSnapshot } from '../deployments/domain/revision-changes.js';
import { errorCode } from '../isolation/error-code.js';
import { CAN_WORK_BY_DESCRIPTOR } from '../isolation/remove-unfollowed.js';
import { readTenantFile } from '../isolation/tenant-file.js';
import { linkSourceFile, SOURCE_READ_LIMITS, sourceFileOf, textCapOf } from './source-file.js';

const DIRECTORY_FLAGS =
  constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** What a build puts in a checkout that is not the source: installed dependencies, git's own. */
const NOT_SOURCE = new Set(['node_modules', '.git']);

/**
 * The files of a checkout kept on disk (a git source's revision directory), read as the
 * platform reads a tenant's tree: each directory held open and listed through its descriptor,
 * no link followed (a link is named with its target), each file read by readTenantFile (a
 * regular file of the deployment's user's, under its cap), within SOURCE_READ_LIMITS.
 */
export async function treeSnapshot(
  root: string,
  graphConfigPath: string,
  ownerUid: number | undefined,
): Promise<SourceSnapshot> {
  const found = await lstat(root).catch(() => undefined);
  if (!found?.isDirectory()) {
    return {
      kept: false,
      reason:
        "its checkout is no longer kept (the platform keeps the last builds of a deployment's revisions)",
    };
  }
  if (!CAN_WORK_BY_DESCRIPTOR) {
    return { kept: false, reason: 'its checkout can be read safely on Linux only' };
  }
  const files = new Map<string, SourceFile>();
  const state = { totalBytes: 0, capped: undefined as string | undefined };
  const walk = async (dir: FileHandle, prefix: string): Promise<void> => {
    const here = `/proc/self/fd/${dir.fd}`;
    const entries = (await readdir(here, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    for (const entry of entries) {
      if (state.capped !== undefined) return;
      if (NOT_SOURCE.has(entry.name)) continue;
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (files.size >= SOURCE_READ_LIMITS.maxFiles) {
        state.capped = `the source has more than ${SOURCE_READ_LIMITS.maxFiles} files: the rest are not compared`;
        return;
      }
      if (entry.isSymbolicLink()) {
        files.set(path, linkSourceFile(await readlink(`${here}/${entry.name}`).catch(() => '?')));
        continue;
      }
      if (entry.isDirectory()) {
        const child = await open(`${here}/${entry.name}`, DIRECTORY_FLAGS).catch(
          (error: unknown) => {
            if (['ENOTDIR', 'ENOENT', 'ELOOP'].includes(errorCode(error) ?? '')) return undefined;
            throw error;
          },
        );
        if (!child) continue;
        try {
          await walk(child, path);
        } finally {
          await child.close();
        }
        continue;
      }
      await readFileOf(root, path, graphConfigPath, ownerUid, files, state);
    }
  };
  const top = await open(root, DIRECTORY_FLAGS);
  try {
    await walk(top, '');
  } finally {
    await top.close();
  }
  return state.capped === undefined
    ? { kept: true, files }
    : { kept: true, files, capped: state.capped };
}

async function readFileOf(
  root: string,
  path: string,
  graphConfigPath: string,
  ownerUid: number | undefined,
  files: Map<string, SourceFile>,
  state: { totalBytes: number; capped: string | undefined },
): Promise<void> {
  const textCap = textCapOf(path, graphConfigPath);
  const left = SOURCE_READ_LIMITS.maxTotalBytes - state.totalBytes;
  const read = await readTenantFile(root, path, { maxBytes: Math.min(textCap, left), ownerUid });
  if (read.ok) {
    state.totalBytes += read.content.length;
    files.set(path, sourceFileOf(read.content, textCap));
    return;
  }
  if (read.refusal === 'missing') return;
  if (read.refusal === 'too_large' && left < textCap) {
    state.capped = `the source holds more than ${SOURCE_READ_LIMITS.maxTotalBytes} bytes: the rest are not compared`;
    return;
  }
  // Not read: named with why, and counted as changed whenever it is there (no hash to compare).
  files.set(path, { bytes: 0, sha256: `unread:${path}:${read.refusal}`, unread: read.reason });
}
