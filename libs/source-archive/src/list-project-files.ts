import { lstat, readdir, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { alwaysExcludedReason } from './always-excluded.js';
import { CACHE_DIRECTORY_REASON, isTaggedCacheDirectory } from './cache-directory-tag.js';
import { IgnoreRules } from './ignore-rules.js';
import { resolveLinkInside } from './link-target.js';
import { normalizedMode, type ProjectEntry } from './project-entry.js';
import { SourceArchiveError } from './source-archive.error.js';

/** Something left out of a project whatever its ignore files say, and why. */
export interface LeftOutEntry {
  /** Relative posix path; a directory's ends with `/`. */
  readonly path: string;
  readonly reason: string;
}

export interface ProjectListing {
  readonly entries: ProjectEntry[];
  /** What the rules of every project leave out (not what its own ignore files do), by path. */
  readonly leftOut: LeftOutEntry[];
}

/**
 * The files and symbolic links to pack under `root` (a real path), sorted by path. Directories
 * are walked, not listed (empty ones are not packed, as in git); sockets, fifos and devices are
 * skipped; directories tagged with CACHEDIR.TAG (Berth's data directory is) are left out. A link
 * is kept as a link when it stays inside `root` (an absolute target is rewritten relative to the
 * link) and refused when it leads out.
 */
export async function listProjectFiles(root: string): Promise<ProjectListing> {
  const listing: ProjectListing = { entries: [], leftOut: [] };
  await walk(root, '', await IgnoreRules.forRoot(root), listing);
  listing.entries.sort((a, b) => byPath(a.path, b.path));
  listing.leftOut.sort((a, b) => byPath(a.path, b.path));
  return listing;
}

async function walk(root: string, dir: string, rules: IgnoreRules, out: ProjectListing) {
  const absoluteDir = join(root, dir);
  for (const name of await readdir(absoluteDir)) {
    const path = dir === '' ? name : `${dir}/${name}`;
    const absolute = join(absoluteDir, name);
    const stats = await lstat(absolute);
    const shown = stats.isDirectory() ? `${path}/` : path;
    const reason =
      alwaysExcludedReason(name) ??
      (stats.isDirectory() && (await isTaggedCacheDirectory(absolute))
        ? CACHE_DIRECTORY_REASON
        : undefined);
    if (reason !== undefined) {
      out.leftOut.push({ path: shown, reason });
      continue;
    }
    if (rules.excludes(path, name, stats.isDirectory())) continue;
    if (stats.isDirectory()) {
      await walk(root, path, await rules.enter(absolute, path), out);
    } else if (stats.isFile()) {
      out.entries.push({ type: 'File', path, mode: normalizedMode(stats.mode), size: stats.size });
    } else if (stats.isSymbolicLink()) {
      out.entries.push({
        type: 'SymbolicLink',
        path,
        linkpath: await linkTarget(root, absolute, path),
      });
    }
  }
}

function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function linkTarget(root: string, absolute: string, path: string): Promise<string> {
  const resolved = await resolveLinkInside(root, absolute);
  if (resolved === undefined) {
    throw new SourceArchiveError(`the symbolic link ${path} points outside the project directory`);
  }
  const target = await readlink(absolute);
  if (!isAbsolute(target)) return target.replaceAll('\\', '/');
  return relative(dirname(absolute), resolved).split(/[\\/]/).join('/') || '.';
}
