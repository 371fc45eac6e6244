import { constants, existsSync, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { errorCode } from './error-code.js';

/**
 * How the platform, running as root, reads a file of a tree a tenant wrote (a cloned or uploaded
 * source): every component of its path opened without following a link, relative to the
 * directory opened before it (through /proc/self/fd, so nothing can be swapped in between), and
 * non-blocking, so that a FIFO or a device never holds a worker of the thread pool; then only a
 * regular file of the tenant's own, at most `maxBytes` read, the whole within `timeoutMs`.
 */

export type TenantFileRefusal =
  | 'missing'
  | 'outside'
  | 'link'
  | 'not_a_file'
  | 'not_owned'
  | 'too_large'
  | 'timed_out'
  | 'unreadable';

export type TenantFileRefused = {
  readonly ok: false;
  readonly refusal: TenantFileRefusal;
  /** For the build log: which file and why it was not read. */
  readonly reason: string;
};

export type TenantFileRead = { readonly ok: true; readonly content: Buffer } | TenantFileRefused;

export type TenantFileLimits = {
  readonly maxBytes: number;
  /** 5 s unless given. */
  readonly timeoutMs?: number;
  /** The user the file must belong to (the deployment's); any when undefined. */
  readonly ownerUid?: number;
};

const DEFAULT_TIMEOUT_MS = 5_000;
const CHUNK_BYTES = 64 * 1024;
const NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const DIRECTORY_FLAGS = NO_FOLLOW | constants.O_DIRECTORY;
/** Where a path can be resolved relative to an open directory (Linux); elsewhere, by its name. */
const BY_DESCRIPTOR = process.platform === 'linux' && existsSync('/proc/self/fd');

/** The names a relative path leads through, or undefined when it could leave its root. */
export function pathComponents(relativePath: string): string[] | undefined {
  if (isAbsolute(relativePath)) return undefined;
  const names = relativePath.split('/').filter((name) => name !== '' && name !== '.');
  if (names.length === 0 || names.includes('..')) return undefined;
  return names;
}

/** What a failed open means; undefined for a failure that is not the tree's doing. */
export function refusalOfError(code: string | undefined): TenantFileRefusal | undefined {
  return code === undefined ? undefined : REFUSAL_OF_ERROR[code];
}

const REFUSAL_OF_ERROR: Partial<Record<string, TenantFileRefusal>> = {
  ENOENT: 'missing',
  ENOTDIR: 'missing',
  ELOOP: 'link',
  EMLINK: 'link',
  ENXIO: 'not_a_file',
  ENODEV: 'not_a_file',
  EISDIR: 'not_a_file',
};

/** Why an opened file is not read, by what fstat says of it; undefined when it may be read. */
export function refusalOfStats(
  stats: Pick<Stats, 'isFile' | 'size' | 'uid'>,
  limits: TenantFileLimits,
): TenantFileRefusal | undefined {
  if (!stats.isFile()) return 'not_a_file';
  if (limits.ownerUid !== undefined && stats.uid !== limits.ownerUid) return 'not_owned';
  if (stats.size > limits.maxBytes) return 'too_large';
  return undefined;
}

const WHY: Record<TenantFileRefusal, (limits: TenantFileLimits) => string> = {
  missing: () => 'is not in the source',
  outside: () => 'leads outside the source',
  link: () => 'is (or lies under) a symbolic link, which the platform never follows',
  not_a_file: () => 'is not a regular file (a directory, FIFO, socket or device)',
  not_owned: () => "does not belong to the deployment's user",
  too_large: (limits) => `is larger than ${limits.maxBytes} bytes`,
  timed_out: (limits) => `could not be read within ${limits.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`,
  unreadable: () => 'could not be read',
};

export function refused(
  relativePath: string,
  refusal: TenantFileRefusal,
  limits: TenantFileLimits,
): TenantFileRefused {
  return { ok: false, refusal, reason: `${relativePath} ${WHY[refusal](limits)}: not read` };
}

/** The file's content, or why it was not read. */
export function readTenantFile(
  root: string,
  relativePath: string,
  limits: TenantFileLimits,
): Promise<TenantFileRead> {
  return withTenantFile(root, relativePath, limits, async (handle) => {
    const content = await readAtMost(handle, limits.maxBytes + 1);
    if (content.length > limits.maxBytes) return refused(relativePath, 'too_large', limits);
    return { ok: true, content };
  });
}

/** Whether the file could be read (a regular file of the tenant's, under the cap), unread. */
export function checkTenantFile(
  root: string,
  relativePath: string,
  limits: TenantFileLimits,
): Promise<{ readonly ok: true } | TenantFileRefused> {
  return withTenantFile(root, relativePath, limits, () => Promise.resolve({ ok: true as const }));
}

async function withTenantFile<T>(
  root: string,
  relativePath: string,
  limits: TenantFileLimits,
  use: (handle: FileHandle) => Promise<T | TenantFileRefused>,
): Promise<T | TenantFileRefused> {
  const names = pathComponents(relativePath);
  if (!names) return refused(relativePath, 'outside', limits);
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<TenantFileRefused>((resolve) => {
    timer = setTimeout(() => {
      resolve(refused(relativePath, 'timed_out', limits));
    }, timeoutMs);
  });
  const work = (async (): Promise<T | TenantFileRefused> => {
    const opened = await openWithin(root, names).catch((error: unknown) => {
      const refusal = refusalOfError(errorCode(error));
      if (!refusal) throw error;
      return refusal;
    });
    if (typeof opened === 'string') return refused(relativePath, opened, limits);
    try {
      const refusal = refusalOfStats(await opened.stat(), limits);
      if (refusal) return refused(relativePath, refusal, limits);
      return await use(opened);
    } finally {
      await opened.close();
    }
  })().catch(() => refused(relativePath, 'unreadable', limits));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Opens root/names..., each directory on the way and the file itself without following links. */
async function openWithin(root: string, names: readonly string[]): Promise<FileHandle> {
  let dir = await open(root, DIRECTORY_FLAGS);
  let dirPath = root;
  try {
    for (const name of names.slice(0, -1)) {
      const next = await openDirectory(join(within(dir, dirPath), name));
      await dir.close();
      dir = next;
      dirPath = join(dirPath, name);
    }
    return await open(join(within(dir, dirPath), names.at(-1) ?? ''), NO_FOLLOW);
  } finally {
    await dir.close();
  }
}

/** A directory opened without following a link; a link is ELOOP (the kernel says ENOTDIR). */
async function openDirectory(path: string): Promise<FileHandle> {
  return open(path, DIRECTORY_FLAGS).catch(async (error: unknown) => {
    if (errorCode(error) === 'ENOTDIR' && (await lstat(path)).isSymbolicLink()) {
      throw Object.assign(new Error(`${path} is a symbolic link`), { code: 'ELOOP' });
    }
    throw error;
  });
}

/** The path of an open directory as the kernel resolves it: by its descriptor where it can. */
const within = (dir: FileHandle, path: string): string =>
  BY_DESCRIPTOR ? `/proc/self/fd/${dir.fd}` : path;

async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, limit - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks);
}
