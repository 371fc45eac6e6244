import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isAlwaysExcluded } from './always-excluded.js';
import { dockerignoreToGitignore } from './dockerignore.js';

interface GitignoreLevel {
  /** Directory of the `.gitignore`, relative to the root, posix, `''` for the root. */
  readonly base: string;
  readonly rules: Ignore;
}

/**
 * What to leave out of a project walk: the always-excluded names, the root `.dockerignore`, and
 * every `.gitignore` met on the way down, with git's precedence (the deepest file with a matching
 * pattern decides; within a file the last matching pattern, so `!` re-includes).
 */
export class IgnoreRules {
  private constructor(
    private readonly docker: Ignore,
    private readonly levels: readonly GitignoreLevel[],
  ) {}

  static async forRoot(root: string): Promise<IgnoreRules> {
    const text = await readOptional(join(root, '.dockerignore'));
    const docker = ignore().add(text === undefined ? [] : dockerignoreToGitignore(text));
    return new IgnoreRules(docker, []).enter(root, '');
  }

  /** The rules inside directory `dir` (`absolute` on disk, `relative` to the root). */
  async enter(absolute: string, relative: string): Promise<IgnoreRules> {
    const text = await readOptional(join(absolute, '.gitignore'));
    if (text === undefined) return this;
    const level = { base: relative, rules: ignore().add(text) };
    return new IgnoreRules(this.docker, [...this.levels, level]);
  }

  /** `path` is relative to the root, posix; `name` its last segment. */
  excludes(path: string, name: string, isDirectory: boolean): boolean {
    if (isAlwaysExcluded(name)) return true;
    const suffix = isDirectory ? '/' : '';
    if (this.docker.ignores(path + suffix)) return true;
    for (let i = this.levels.length - 1; i >= 0; i--) {
      const level = this.levels[i];
      if (level === undefined) continue;
      const inLevel = level.base === '' ? path : path.slice(level.base.length + 1);
      const result = level.rules.test(inLevel + suffix);
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }
}

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
