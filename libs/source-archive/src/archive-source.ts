import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { SourceArchiveError } from './source-archive.error.js';

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

/** The archive (in memory or a file path) as a stream, once its first bytes say it is a gzip. */
export async function openArchiveSource(archive: Buffer | string): Promise<Readable> {
  const head = typeof archive === 'string' ? await readHead(archive) : archive.subarray(0, 2);
  if (!head.equals(GZIP_MAGIC)) throw new SourceArchiveError('the archive is not a gzip tarball');
  return typeof archive === 'string' ? createReadStream(archive) : Readable.from([archive]);
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
