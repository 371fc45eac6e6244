import { lstat, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

const MAX_LINK_HOPS = 40;

interface Step {
  readonly segment: string;
  /** Segments of a relative target must keep the walk inside the root at every step. */
  readonly confined: boolean;
}

/** Whether `path` is `root` or below it (both absolute and normalized). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Follows the symbolic link `link` (absolute, in a real directory below `root`, itself a real
 * path) component by component as the kernel would, through further links, and returns the path
 * it leads to, or `undefined` when it leads out of `root`. A relative target may not step out of
 * `root` even on the way (`../root-name/x` is refused: it would break once extracted elsewhere);
 * an absolute one is judged by where it ends. Missing components are taken literally, so a
 * dangling link is judged by where it points.
 */
export async function resolveLinkInside(root: string, link: string): Promise<string | undefined> {
  let current = dirname(link);
  const pending: Step[] = [];
  const follow = async (path: string): Promise<void> => {
    const target = await readlink(path);
    if (isAbsolute(target)) current = '/';
    const steps = target
      .split(/[\\/]/)
      .map((segment) => ({ segment, confined: !isAbsolute(target) }));
    pending.unshift(...steps);
  };
  await follow(link);
  for (let hops = 0, step = pending.shift(); step !== undefined; step = pending.shift()) {
    if (step.segment === '' || step.segment === '.') continue;
    const next = step.segment === '..' ? dirname(current) : join(current, step.segment);
    if (step.segment !== '..' && (await isSymbolicLink(next))) {
      if (++hops > MAX_LINK_HOPS) return undefined;
      await follow(next);
      continue;
    }
    current = next;
    if (step.confined && !isInside(root, current)) return undefined;
  }
  return isInside(root, current) ? current : undefined;
}

async function isSymbolicLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}
