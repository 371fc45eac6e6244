import { lstat, readdir, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { IgnoreRules } from './ignore-rules.js';
import { resolveLinkInside } from './link-target.js';
import { normalizedMode, type ProjectEntry } from './project-entry.js';
import { SourceArchiveError } from './source-archive.error.js';

/**
 * The files and symbolic links to pack under `root` (a real path), sorted by path. Directories
 * are walked, not listed (empty ones are not packed, as in git); sockets, fifos and devices are
 * skipped. A link is kept as a link when it stays inside `root` (an absolute target is rewritten
 * relative to the link) and refused when it leads out.
 */
export async function listProjectFiles(root: string): Promise<ProjectEntry[]> {
  const entries: ProjectEntry[] = [];
  await walk(root, '', await IgnoreRules.forRoot(root), entries);
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function walk(root: string, dir: string, rules: IgnoreRules, out: ProjectEntry[]) {
  const absoluteDir = join(root, dir);
  for (const name of await readdir(absoluteDir)) {
    const path = dir === '' ? name : `${dir}/${name}`;
    const absolute = join(absoluteDir, name);
    const stats = await lstat(absolute);
    if (rules.excludes(path, name, stats.isDirectory())) continue;
    if (stats.isDirectory()) {
      await walk(root, path, await rules.enter(absolute, path), out);
    } else if (stats.isFile()) {
      out.push({ type: 'File', path, mode: normalizedMode(stats.mode), size: stats.size });
    } else if (stats.isSymbolicLink()) {
      out.push({ type: 'SymbolicLink', path, linkpath: await linkTarget(root, absolute, path) });
    }
  }
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
