import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { formatBytes } from './format-bytes.js';
import { listProjectFiles, type LeftOutEntry } from './list-project-files.js';
import { SourceArchiveError } from './source-archive.error.js';
import { writeTarball } from './write-tarball.js';

export const DEFAULT_MAX_PACKED_BYTES = 50 * 1024 * 1024;

export interface PackOptions {
  /** Largest gzip accepted, 50 MiB by default. */
  readonly maxBytes?: number;
}

export interface PackedArchive {
  readonly archive: Buffer;
  /** Relative posix paths of the files and symbolic links packed, sorted. */
  readonly files: string[];
  /** Size of the gzip. */
  readonly bytes: number;
  /** What was left out whatever the project's ignore files say (see `listProjectFiles`). */
  readonly leftOut: LeftOutEntry[];
}

/**
 * Packs the project directory `root` into a deterministic gzip tarball (see `listProjectFiles`
 * for what goes in, `writeTarball` for the format). Symbolic links staying inside `root` are
 * stored as links; one leading out, an empty project or a tarball over `maxBytes` is refused.
 */
export async function packDirectory(
  root: string,
  options: PackOptions = {},
): Promise<PackedArchive> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_PACKED_BYTES;
  const directory = await projectDirectory(root);
  const { entries, leftOut } = await listProjectFiles(directory);
  if (entries.length === 0) {
    throw new SourceArchiveError(
      `nothing to pack in ${root}: it has no files that are not ignored`,
    );
  }
  const { archive, bytes } = await writeTarball(directory, entries, maxBytes);
  if (archive === undefined) {
    throw new SourceArchiveError(
      `the packed project is ${formatBytes(bytes)}, over the limit of ${formatBytes(maxBytes)}: ` +
        'leave large files out with .gitignore or .dockerignore',
    );
  }
  return { archive, files: entries.map((entry) => entry.path), bytes, leftOut };
}

async function projectDirectory(root: string): Promise<string> {
  try {
    const directory = await realpath(resolve(root));
    if ((await stat(directory)).isDirectory()) return directory;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  throw new SourceArchiveError(`${root} is not a directory`);
}
