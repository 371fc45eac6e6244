import { afterEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { extractArchive } from './extract-archive.js';
import { packDirectory } from './pack-directory.js';
import { SourceArchiveError } from './source-archive.error.js';
import { rawTar, rawTarball } from './testing/tar-fixtures.js';
import { TempDirs, writeTree } from './testing/temp-dir.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

/** Extracts into a fresh destination; returns the destination and the promise of the result. */
async function extractInto(
  archive: Buffer | string,
  options?: Parameters<typeof extractArchive>[2],
) {
  const parent = await temp.make();
  const destination = join(parent, 'out');
  return { parent, destination, extraction: extractArchive(archive, destination, options) };
}

async function expectRefused(
  archive: Buffer,
  message: string | RegExp,
  options?: Parameters<typeof extractArchive>[2],
) {
  const { parent, destination, extraction } = await extractInto(archive, options);
  await expect(extraction).rejects.toThrow(SourceArchiveError);
  await expect(extraction).rejects.toThrow(message);
  expect(existsSync(destination)).toBe(false);
  expect(await readdir(parent)).toEqual([]);
}

describe('extractArchive', () => {
  it('extracts a packed project from a file path, counting files and bytes', async () => {
    const root = await temp.make();
    await writeTree(root, { 'a.txt': 'hello', 'src/b.ts': 'export {};' });
    const archiveFile = join(await temp.make(), 'source.tgz');
    await writeFile(archiveFile, (await packDirectory(root)).archive);
    const { destination, extraction } = await extractInto(archiveFile);
    expect(await extraction).toEqual({ files: 2, bytes: 15 });
    expect(await readFile(join(destination, 'src/b.ts'), 'utf8')).toBe('export {};');
  });

  it('refuses a destination that is not empty, and leaves it alone', async () => {
    const destination = await temp.make();
    await writeFile(join(destination, 'mine.txt'), 'keep me');
    await expect(
      extractArchive(rawTarball([{ path: 'a.txt', body: 'a' }]), destination),
    ).rejects.toThrow('not empty');
    expect(await readdir(destination)).toEqual(['mine.txt']);
  });

  it('refuses an entry with an absolute path', async () => {
    await expectRefused(
      rawTarball([
        { path: 'ok.txt', body: 'x' },
        { path: '/tmp/evil.txt', body: 'x' },
      ]),
      'absolute path',
    );
  });

  it('refuses an entry with a .. segment', async () => {
    await expectRefused(
      rawTarball([{ path: 'src/../../evil.txt', body: 'x' }]),
      "'..' path segment",
    );
  });

  it('refuses a symbolic link leading out, before the file written through it', async () => {
    const archive = rawTarball([
      { path: 'escape', type: 'SymbolicLink', linkpath: '../outside' },
      { path: 'escape/pwned.txt', body: 'x' },
    ]);
    await expectRefused(archive, 'the symbolic link escape points outside the destination');
  });

  it('refuses a symbolic link with an absolute target', async () => {
    await expectRefused(
      rawTarball([{ path: 'passwd', type: 'SymbolicLink', linkpath: '/etc/passwd' }]),
      'passwd points outside',
    );
  });

  it('refuses an entry written through a symbolic link, even one staying inside', async () => {
    const archive = rawTarball([
      { path: 'real/a.txt', body: 'a' },
      { path: 'alias', type: 'SymbolicLink', linkpath: 'real' },
      { path: 'alias/b.txt', body: 'b' },
    ]);
    await expectRefused(archive, 'alias/b.txt would be written through the symbolic link alias');
  });

  it('refuses a link that leads out through another link of the archive', async () => {
    const archive = rawTarball([
      { path: 'here', type: 'SymbolicLink', linkpath: '.' },
      { path: 'sneaky', type: 'SymbolicLink', linkpath: 'here/../secret' },
    ]);
    await expectRefused(archive, 'the symbolic link sneaky points outside the destination');
  });

  it('keeps symbolic links that stay inside', async () => {
    const archive = rawTarball([
      { path: 'src/a.txt', body: 'a' },
      { path: 'src/alias.txt', type: 'SymbolicLink', linkpath: 'a.txt' },
    ]);
    const { destination, extraction } = await extractInto(archive);
    expect(await extraction).toEqual({ files: 2, bytes: 1 });
    expect(await readFile(join(destination, 'src/alias.txt'), 'utf8')).toBe('a');
  });

  it('refuses hard links', async () => {
    const archive = rawTarball([
      { path: 'a.txt', body: 'a' },
      { path: 'b.txt', type: 'Link', linkpath: 'a.txt' },
    ]);
    await expectRefused(archive, 'b.txt is a hard link');
  });

  it.each(['FIFO', 'CharacterDevice', 'BlockDevice'] as const)(
    'refuses a %s entry',
    async (type) => {
      await expectRefused(rawTarball([{ path: 'dev', type }]), `dev is a ${type}`);
    },
  );

  it('refuses more entries than maxEntries', async () => {
    const entries = Array.from({ length: 11 }, (_, i) => ({ path: `f${i}.txt`, body: 'x' }));
    await expectRefused(rawTarball(entries), 'more than 10 entries', { maxEntries: 10 });
  });

  it('stops a decompression bomb at the header announcing too many bytes', async () => {
    const bomb = rawTarball([{ path: 'zeros.bin', body: Buffer.alloc(32 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(100 * 1024);
    await expectRefused(bomb, 'unpacks to more than 1.0 MiB (1048576 bytes)', {
      maxBytes: 1024 * 1024,
    });
  });

  it('stops a decompression bomb hidden after the end of the tar', async () => {
    const tar = rawTar([{ path: 'a.txt', body: 'a' }]);
    const bomb = gzipSync(Buffer.concat([tar, Buffer.alloc(64 * 1024 * 1024)]));
    await expectRefused(bomb, 'more data than its entries account for');
  });

  it('refuses random bytes as not a gzip tarball', async () => {
    await expectRefused(randomBytes(4096), 'not a gzip tarball');
    await expectRefused(Buffer.alloc(0), 'not a gzip tarball');
  });

  it('refuses a truncated gzip as corrupt or truncated', async () => {
    const archive = rawTarball([{ path: 'a.bin', body: randomBytes(20_000) }]);
    await expectRefused(archive.subarray(0, archive.length - 2000), 'corrupt or truncated');
  });

  it('refuses a gzip that does not hold a tar, or a tar with a damaged header', async () => {
    await expectRefused(gzipSync(randomBytes(4096)), 'corrupt or truncated');
    const damaged = rawTar([{ path: 'a.txt', body: 'a' }]);
    damaged.write('tampered', 0);
    await expectRefused(gzipSync(damaged), 'corrupt or truncated');
  });

  it('refuses a tar cut inside an entry', async () => {
    const header = new Header({ path: 'big.bin', size: 10_000, mode: 0o644, type: 'File' });
    header.encode();
    await expectRefused(
      gzipSync(Buffer.concat([header.block ?? Buffer.alloc(0), Buffer.alloc(1000)])),
      'corrupt or truncated',
    );
  });

  it('creates missing parent directories of the destination', async () => {
    const parent = await temp.make();
    await mkdir(join(parent, 'existing'));
    const destination = join(parent, 'existing', 'deeper', 'out');
    await extractArchive(rawTarball([{ path: 'a.txt', body: 'a' }]), destination);
    expect(await readdir(destination)).toEqual(['a.txt']);
  });
});
