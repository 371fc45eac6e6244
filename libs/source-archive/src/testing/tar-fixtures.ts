import { gzipSync } from 'node:zlib';
import { Header, type HeaderData } from 'tar';

export interface RawEntry extends HeaderData {
  readonly body?: Buffer | string;
}

/** A tar stream written by hand, entry after entry, without any of the packer's checks. */
export function rawTar(entries: readonly RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { body, ...data } of entries) {
    const content = typeof body === 'string' ? Buffer.from(body) : (body ?? Buffer.alloc(0));
    const header = new Header({ mode: 0o644, mtime: new Date(0), ...data, size: content.length });
    header.encode();
    if (header.block === undefined) throw new Error('header not encoded');
    blocks.push(header.block, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function rawTarball(entries: readonly RawEntry[]): Buffer {
  return gzipSync(rawTar(entries));
}
