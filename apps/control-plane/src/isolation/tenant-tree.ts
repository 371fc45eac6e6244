import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import {
  chmod,
  lchown,
  lstat,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  rmdir,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { errorCode } from './error-code.js';
import type { OsIdentity } from './os-identities.js';
import { CAN_WORK_BY_DESCRIPTOR, emptyWithoutFollowing } from './remove-unfollowed.js';

const run = promisify(execFile);

/**
 * What the platform, running as root, does in a deployment's tree. The tenant's code can write
 * parts of that tree (its home, its temporary directory, its source), so nothing here follows a
 * symbolic link the tenant could have planted: directories are opened with O_NOFOLLOW and changed
 * through the handle (fchown, fchmod), then checked; files are created with O_NOFOLLOW; trees are
 * emptied with the tenant's own rights before the platform removes what is left, and the platform
 * descends only into directories that no tenant owns.
 */

export { errorCode } from './error-code.js';

/** The owner of a directory the tenant must not change (its parent of everything it owns). */
export const PLATFORM: OsIdentity = { uid: 0, gid: 0 };

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const NEW_FILE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Makes `path` a real directory owned by `owner` (or left to the process's own user when
 * undefined) with `mode`. A symbolic link or a file found there is removed first, never followed.
 * Its parent must be a directory the tenant cannot write.
 */
export async function ensureDirectory(
  path: string,
  owner: OsIdentity | undefined,
  mode: number,
): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    await mkdir(path).catch((error: unknown) => {
      if (errorCode(error) !== 'EEXIST') throw error;
    });
    const handle = await open(path, DIRECTORY_FLAGS).catch(async (error: unknown) => {
      // ELOOP: a symbolic link; ENOTDIR: a file. Neither is followed: it goes.
      if (errorCode(error) !== 'ELOOP' && errorCode(error) !== 'ENOTDIR') throw error;
      await unlink(path);
      return undefined;
    });
    if (!handle) continue;
    try {
      await setOwnerAndMode(handle, owner, mode);
      return;
    } finally {
      await handle.close();
    }
  }
  throw new Error(`${path} could not be made a directory: something keeps replacing it`);
}

async function setOwnerAndMode(
  handle: FileHandle,
  owner: OsIdentity | undefined,
  mode: number,
): Promise<void> {
  if (owner) await handle.chown(owner.uid, owner.gid);
  await handle.chmod(mode);
  const found = await handle.stat();
  const ownerOk = !owner || (found.uid === owner.uid && found.gid === owner.gid);
  if (!found.isDirectory() || !ownerOk || (found.mode & 0o7777) !== mode) {
    throw new Error(`the directory's owner or mode did not take (uid ${found.uid})`);
  }
}

/**
 * Writes a file of the platform's where no symbolic link is followed (its directory is root's):
 * made new beside it, then renamed over it, so that the path always names a whole file (a jail
 * being set up meanwhile binds the old one or the new one, never none).
 */
export async function writePlatformFile(path: string, content: string): Promise<void> {
  const staged = `${path}.${randomUUID()}`;
  const handle = await open(staged, NEW_FILE_FLAGS, 0o644);
  try {
    await handle.writeFile(content);
    const found = await handle.stat();
    if (!found.isFile() || found.nlink !== 1) throw new Error(`${path} is not a file of its own`);
  } catch (error) {
    await unlink(staged).catch(() => undefined);
    throw error;
  } finally {
    await handle.close();
  }
  await rename(staged, path);
}

/**
 * Removes a tree that the tenant's user may have written. The platform lists and removes only
 * its own directories (whose parents are its own, so none can be swapped for a link); each
 * directory a user owns is emptied with that user's own rights (whatever was planted there is
 * removed as that user could remove it itself, links unfollowed) and then removed empty; what
 * the user could not remove, the platform removes through directory descriptors
 * (remove-unfollowed.ts), following no link.
 */
export async function removeTenantTree(path: string, owner: OsIdentity | undefined): Promise<void> {
  if (!owner) {
    await rm(path, { recursive: true, force: true, maxRetries: 3 });
    return;
  }
  const found = await lstat(path).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  });
  if (!found) return;
  if (!found.isDirectory()) {
    await unlink(path);
    return;
  }
  if (found.uid === PLATFORM.uid) {
    for (const entry of await readdir(path)) await removeTenantTree(join(path, entry), owner);
  } else {
    await emptyAs({ uid: found.uid, gid: found.gid }, path);
  }
  if (await removedEmpty(path)) return;
  // What its user could not remove (made so by another user, or it could not run): the platform.
  const failed = CAN_WORK_BY_DESCRIPTOR
    ? await emptyWithoutFollowing(path).then(
        () => undefined,
        (error: unknown) => errorCode(error) ?? String(error),
      )
    : undefined;
  if (await removedEmpty(path)) return;
  const left = (await readdir(path).catch(() => [])).slice(0, 5).join(', ');
  const why = failed ? `: ${failed}` : '';
  throw new Error(`${path} still holds what could not be removed (${left})${why}`);
}

/** Removes a directory if it is empty; false when it is not. */
async function removedEmpty(path: string): Promise<boolean> {
  return rmdir(path).then(
    () => true,
    (error: unknown) => {
      if (errorCode(error) !== 'ENOTEMPTY' && errorCode(error) !== 'EEXIST') throw error;
      return false;
    },
  );
}

/**
 * Empties a directory as its owner: every directory below it opened up first, top-down (chmod -R
 * sets a directory's mode before it reads it, so one the owner closed, inside another it closed,
 * is reached; it follows no link), then everything removed, links unfollowed. The directory
 * itself is the platform's to remove.
 */
const EMPTY_AS_OWNER = [
  'chmod -R u+rwx -- "$1"',
  'find "$1" -mindepth 1 -maxdepth 1 -exec rm -rf --one-file-system -- {} +',
].join('; ');

async function emptyAs(user: OsIdentity, dir: string): Promise<void> {
  await run('/bin/sh', ['-c', EMPTY_AS_OWNER, 'empty', dir], {
    uid: user.uid,
    gid: user.gid,
    // The platform's working directory may be closed to the user: then it could not start.
    cwd: '/',
    env: { PATH: '/usr/bin:/bin' },
  }).catch(() => undefined);
}

/**
 * Gives a tree that only the platform could write so far (an archive it just extracted) to the
 * deployment's user, deepest entries first: the tenant owns no directory of it until everything
 * below that directory is done, so it cannot swap a directory for a link while the walk is on.
 */
export async function handOver(path: string, owner: OsIdentity): Promise<void> {
  const found = await lstat(path);
  if (found.isDirectory()) {
    for (const entry of await readdir(path)) await handOver(join(path, entry), owner);
  }
  await lchown(path, owner.uid, owner.gid);
}

/**
 * Makes a tree the platform's and readable by the tenant's group, writable by nobody else:
 * installed dependencies that every deployment of the tenant reuses. Only for a tree no tenant
 * process can reach any longer (the sandbox that wrote it has ended, and it was moved into a
 * directory of the platform's).
 */
export async function sealForGroup(path: string, gid: number): Promise<void> {
  const found = await lstat(path);
  if (found.isDirectory()) {
    for (const entry of await readdir(path)) await sealForGroup(join(path, entry), gid);
  }
  await lchown(path, PLATFORM.uid, gid);
  if (found.isSymbolicLink()) return;
  const executable = (found.mode & 0o100) !== 0 || found.isDirectory();
  await chmod(path, executable ? 0o750 : 0o640);
}
