import { mkdir, readdir, realpath, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createGunzip } from 'node:zlib';
import { openArchiveSource } from './archive-source.js';
import { EntryPolicy } from './entry-policy.js';
import { formatBytes } from './format-bytes.js';
import { resolveLinkInside } from './link-target.js';
import { SourceArchiveError } from './source-archive.error.js';
import { UnpackStream } from './unpack-stream.js';

export const DEFAULT_MAX_UNPACKED_BYTES = 500 * 1024 * 1024;
export const DEFAULT_MAX_ENTRIES = 100_000;
/** Headers, pax records and padding allowed in the tar stream on top of the files' bytes. */
const BASE_OVERHEAD = 1024 * 1024;
const OVERHEAD_PER_ENTRY = 4096;

export interface ExtractOptions {
  /** Largest total size of the files unpacked, 500 MiB by default. */
  readonly maxBytes?: number;
  /** Most entries (files, directories, links), 100 000 by default. */
  readonly maxEntries?: number;
}

export interface ExtractedArchive {
  /** Files and symbolic links written. */
  readonly files: number;
  /** Total size of the files written. */
  readonly bytes: number;
}

/**
 * Safely extracts a gzip tarball (a Buffer or a file path) into `destination`, which is created
 * and must not hold anything yet. Every entry is checked before it is written (`EntryPolicy`),
 * the decompressed stream is measured as it flows, so a decompression bomb stops early, and
 * symbolic links are resolved once all is written. On refusal, a `SourceArchiveError`, and on any
 * other failure, `destination` is removed.
 */
export async function extractArchive(
  archive: Buffer | string,
  destination: string,
  options: ExtractOptions = {},
): Promise<ExtractedArchive> {
  const limits = {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_UNPACKED_BYTES,
    maxEntries: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
  };
  const directory = await createEmptyDirectory(resolve(destination));
  const policy = new EntryPolicy(limits);
  try {
    await unpackInto(archive, directory, policy);
    await checkSymlinks(directory, policy.symlinks);
    return { files: policy.files, bytes: policy.bytes };
  } catch (error) {
    await rm(directory, { recursive: true, force: true, maxRetries: 3 });
    throw error;
  }
}

async function unpackInto(archive: Buffer | string, directory: string, policy: EntryPolicy) {
  const source = await openArchiveSource(archive);
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  const unpack = new UnpackStream(directory, policy);
  let tarBytes = 0;
  try {
    for await (const chunk of source.pipe(gunzip) as AsyncIterable<Buffer>) {
      tarBytes += chunk.length;
      const allowed = policy.bytes + BASE_OVERHEAD + OVERHEAD_PER_ENTRY * policy.entries;
      if (tarBytes > allowed) {
        throw new SourceArchiveError(
          `the archive unpacks to more data than its entries account for (over ${formatBytes(allowed)})`,
        );
      }
      await unpack.write(chunk);
    }
    await unpack.end();
  } catch (error) {
    unpack.fail(error);
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw new SourceArchiveError(
        `the archive is corrupt or truncated: ${String((error as { message?: unknown }).message)}`,
      );
    }
    throw error;
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

async function createEmptyDirectory(directory: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  if ((await readdir(directory)).length > 0) {
    throw new SourceArchiveError(`cannot extract into ${directory}: it is not empty`);
  }
  return realpath(directory);
}

async function checkSymlinks(directory: string, symlinks: readonly string[]): Promise<void> {
  for (const link of symlinks) {
    if ((await resolveLinkInside(directory, join(directory, link))) === undefined) {
      throw new SourceArchiveError(`the symbolic link ${link} points outside the destination`);
    }
  }
}
