import { posix } from 'node:path';
import type { ReadEntry } from 'tar';
import { formatBytes } from './format-bytes.js';
import { normalizedMode } from './project-entry.js';
import { SourceArchiveError } from './source-archive.error.js';

export interface ExtractLimits {
  readonly maxBytes: number;
  readonly maxEntries: number;
}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * Decides, from its header alone and before anything is written, whether an archive entry may be
 * extracted: a relative path without `..`, not below a symbolic link of the archive, a regular
 * file, directory or symbolic link whose target stays inside, within the limits. Throws a
 * `SourceArchiveError` otherwise. Normalizes modes to 0755/0644 (no setuid, no world-writable).
 */
export class EntryPolicy {
  entries = 0;
  files = 0;
  bytes = 0;
  /** Symbolic links admitted so far, normalized relative paths. */
  readonly symlinks: string[] = [];
  private readonly symlinkSet = new Set<string>();

  constructor(private readonly limits: ExtractLimits) {}

  admit(entry: ReadEntry): void {
    if (++this.entries > this.limits.maxEntries) {
      throw new SourceArchiveError(`the archive has more than ${this.limits.maxEntries} entries`);
    }
    const path = this.checkedPath(entry.path);
    if (FILE_TYPES.has(entry.type)) {
      this.bytes += entry.size;
      this.files++;
      if (this.bytes > this.limits.maxBytes) {
        throw new SourceArchiveError(
          `the archive unpacks to more than ${formatBytes(this.limits.maxBytes)}`,
        );
      }
      entry.mode = normalizedMode(entry.mode ?? 0o644);
    } else if (entry.type === 'Directory') {
      entry.mode = 0o755;
    } else if (entry.type === 'SymbolicLink') {
      this.checkLinkTarget(path, entry.linkpath ?? '');
      this.files++;
      this.symlinks.push(path);
      this.symlinkSet.add(path);
    } else if (entry.type === 'Link') {
      throw new SourceArchiveError(`the archive entry ${entry.path} is a hard link`);
    } else {
      throw new SourceArchiveError(
        `the archive entry ${entry.path} is a ${entry.type}, not a file`,
      );
    }
  }

  /** Returns the normalized relative path (no trailing slash). */
  private checkedPath(raw: string): string {
    if (raw.startsWith('/') || raw.startsWith('\\') || /^[a-zA-Z]:/.test(raw)) {
      throw new SourceArchiveError(`the archive entry ${raw} has an absolute path`);
    }
    if (raw.split(/[\\/]/).includes('..')) {
      throw new SourceArchiveError(`the archive entry ${raw} has a '..' path segment`);
    }
    const path = posix.normalize(raw).replace(/\/+$/, '');
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join('/');
      if (this.symlinkSet.has(parent)) {
        throw new SourceArchiveError(
          `the archive entry ${raw} would be written through the symbolic link ${parent}`,
        );
      }
    }
    return path;
  }

  private checkLinkTarget(path: string, target: string): void {
    const resolved = posix.normalize(posix.join(posix.dirname(path), target.replaceAll('\\', '/')));
    if (
      posix.isAbsolute(target) ||
      /^[a-zA-Z]:/.test(target) ||
      resolved === '..' ||
      resolved.startsWith('../')
    ) {
      throw new SourceArchiveError(
        `the symbolic link ${path} points outside the destination (${target})`,
      );
    }
  }
}
