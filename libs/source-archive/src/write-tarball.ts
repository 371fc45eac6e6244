import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Header, Pax, type HeaderData } from 'tar';
import type { ProjectEntry } from './project-entry.js';
import { SourceArchiveError } from './source-archive.error.js';

const BLOCK = 512;
/** Every entry carries this mtime, so that the same tree packs to the same bytes. */
const FIXED_MTIME = new Date(0);

/**
 * Writes `entries` (read from `root`) as a gzip ustar/pax tarball with no owner, no times but a
 * fixed mtime and normalized modes. Returns the gzip, or, once it grows past `maxBytes`, only its
 * size: the rest is compressed to measure it but not kept.
 */
export async function writeTarball(
  root: string,
  entries: readonly ProjectEntry[],
  maxBytes: number,
): Promise<{ archive: Buffer | undefined; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  await pipeline(
    Readable.from(tarBlocks(root, entries)),
    createGzip(),
    async (gzip: AsyncIterable<Buffer>) => {
      for await (const chunk of gzip) {
        bytes += chunk.length;
        if (bytes <= maxBytes) chunks.push(chunk);
        else chunks.length = 0;
      }
    },
  );
  return { archive: bytes <= maxBytes ? Buffer.concat(chunks) : undefined, bytes };
}

async function* tarBlocks(root: string, entries: readonly ProjectEntry[]): AsyncGenerator<Buffer> {
  for (const entry of entries) {
    if (entry.type === 'SymbolicLink') {
      yield header({
        type: 'SymbolicLink',
        path: entry.path,
        linkpath: entry.linkpath,
        mode: 0o777,
        size: 0,
      });
      continue;
    }
    yield header({ type: 'File', path: entry.path, mode: entry.mode, size: entry.size });
    let read = 0;
    for await (const chunk of createReadStream(join(root, entry.path)) as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > entry.size) break;
      yield chunk;
    }
    if (read !== entry.size)
      throw new SourceArchiveError(`${entry.path} changed while it was packed`);
    const padding = (BLOCK - (entry.size % BLOCK)) % BLOCK;
    if (padding > 0) yield Buffer.alloc(padding);
  }
  yield Buffer.alloc(2 * BLOCK);
}

function header(data: HeaderData): Buffer {
  const fields = { ...data, mtime: FIXED_MTIME, uid: 0, gid: 0, uname: '', gname: '' };
  const block = Buffer.alloc(BLOCK);
  const needsPax = new Header(fields).encode(block);
  if (!needsPax) return block;
  const pax = new Pax({ path: fields.path, linkpath: fields.linkpath, mtime: FIXED_MTIME });
  return Buffer.concat([pax.encode(), block]);
}
