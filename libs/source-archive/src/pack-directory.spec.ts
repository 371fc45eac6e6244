import { afterEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFile, readlink, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { extractArchive } from './extract-archive.js';
import { CACHE_DIRECTORY_TAG_SIGNATURE } from './cache-directory-tag.js';
import { packDirectory } from './pack-directory.js';
import { SourceArchiveError } from './source-archive.error.js';
import { TempDirs, writeTree } from './testing/temp-dir.js';

const temp = new TempDirs();
afterEach(() => temp.removeAll());

async function projectWith(files: Parameters<typeof writeTree>[1]): Promise<string> {
  const root = await temp.make();
  await writeTree(root, files);
  return root;
}

describe('packDirectory', () => {
  it('packs a tree that extracts to the same files, contents and modes', async () => {
    const root = await projectWith({
      'langgraph.json': '{"graphs":{}}',
      'src/agent.ts': 'export const agent = 1;\n',
      'bin/run.sh': { text: '#!/bin/sh\necho hi\n', mode: 0o755 },
      [`deep/${'very-long-directory-name/'.repeat(8)}file.txt`]: 'deep',
      'données/é.txt': 'unicode',
    });
    const packed = await packDirectory(root);

    expect(packed.files).toEqual([...packed.files].sort());
    expect(packed.files).toContain('bin/run.sh');
    expect(packed.bytes).toBe(packed.archive.length);
    expect(packed.archive.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    const out = join(await temp.make(), 'out');
    const extracted = await extractArchive(packed.archive, out);
    expect(extracted.files).toBe(packed.files.length);
    for (const file of packed.files) {
      expect(await readFile(join(out, file), 'utf8')).toBe(
        await readFile(join(root, file), 'utf8'),
      );
    }
    expect((await stat(join(out, 'bin/run.sh'))).mode & 0o777).toBe(0o755);
    expect((await stat(join(out, 'src/agent.ts'))).mode & 0o777).toBe(0o644);
  });

  it('honours nested .gitignore files with directory patterns and negation', async () => {
    const root = await projectWith({
      '.gitignore': 'dist/\n*.log\n!keep.log\n',
      'dist/index.js': 'built',
      'src/dist': 'a file named dist is not a directory',
      'debug.log': 'x',
      'keep.log': 'kept by negation',
      'src/.gitignore': 'generated/\n!important.log\n/local.txt\n',
      'src/generated/a.ts': 'x',
      'src/important.log': 'kept by a nested negation',
      'src/other.log': 'x',
      'src/local.txt': 'anchored to src',
      'src/deeper/local.txt': 'not matched by an anchored pattern',
      'src/index.ts': 'ok',
    });
    const { files } = await packDirectory(root);
    expect(files).toEqual([
      '.gitignore',
      'keep.log',
      'src/.gitignore',
      'src/deeper/local.txt',
      'src/dist',
      'src/important.log',
      'src/index.ts',
    ]);
  });

  it('honours the root .dockerignore, anchored at the root as Docker does', async () => {
    const root = await projectWith({
      '.dockerignore': '# comment\n*.md\n!README.md\ntests/\n**/*.tmp\n',
      'README.md': 'kept',
      'CHANGELOG.md': 'ignored',
      'docs/guide.md': 'kept: *.md is the root only',
      'tests/a.spec.ts': 'ignored',
      'src/x.tmp': 'ignored at depth',
      'src/index.ts': 'ok',
    });
    const { files } = await packDirectory(root);
    expect(files).toEqual(['.dockerignore', 'README.md', 'docs/guide.md', 'src/index.ts']);
  });

  it('always leaves out node_modules, .git and .env files, at any depth, but keeps .env.example', async () => {
    const root = await projectWith({
      '.gitignore': '!node_modules/\n!.env\n',
      'node_modules/dep/index.js': 'x',
      'packages/a/node_modules/dep/index.js': 'x',
      '.git/HEAD': 'ref: refs/heads/main',
      'vendor/lib/.git/config': 'x',
      '.env': 'SECRET=1',
      '.env.local': 'SECRET=2',
      'packages/a/.env.production': 'SECRET=3',
      '.env.example': 'SECRET=',
      'packages/a/.env.example': 'SECRET=',
      'packages/a/index.ts': 'ok',
      '.environment.ts': 'not an env file',
    });
    const { files } = await packDirectory(root);
    expect(files).toEqual([
      '.env.example',
      '.environment.ts',
      '.gitignore',
      'packages/a/.env.example',
      'packages/a/index.ts',
    ]);
  });

  it("leaves out Berth's own data and any tagged cache directory, and says why", async () => {
    const root = await projectWith({
      'langgraph.json': '{"graphs":{}}',
      '.gitignore': '!.berth\n!.berth/**\n',
      '.berth/api-key': 'berth_dev_key',
      '.berth/postgres.password': 'dev-password',
      '.berth/postgres/global/pg_internal.init': 'cluster',
      'src/.berth/api-key': 'nested',
      '.langgraph_api/.langgraph_checkpoint.1.pckl': 'conversations',
      'data/CACHEDIR.TAG': `${CACHE_DIRECTORY_TAG_SIGNATURE}\n`,
      'data/postgres.password': 'elsewhere',
      'notes/CACHEDIR.TAG': 'not the signature',
      'notes/todo.md': 'kept',
      '.env': 'SECRET=1',
    });
    const packed = await packDirectory(root);
    expect(packed.files).toEqual([
      '.gitignore',
      'langgraph.json',
      'notes/CACHEDIR.TAG',
      'notes/todo.md',
    ]);
    expect(packed.leftOut.map((entry) => entry.path)).toEqual([
      '.berth/',
      '.env',
      '.langgraph_api/',
      'data/',
      'src/.berth/',
    ]);
    expect(packed.leftOut.find((entry) => entry.path === '.berth/')?.reason).toMatch(
      /Berth's own data/,
    );
    expect(packed.leftOut.find((entry) => entry.path === 'data/')?.reason).toMatch(/CACHEDIR\.TAG/);
  });

  it('stores links that stay inside as links, an absolute target rewritten relative', async () => {
    const root = await projectWith({ 'src/index.ts': 'ok', 'shared/config.json': '{}' });
    await symlink('../shared/config.json', join(root, 'src/config.json'));
    await symlink(join(root, 'shared'), join(root, 'src/shared'));
    await symlink('dist/not-built-yet.js', join(root, 'main.js'));
    const packed = await packDirectory(root);
    expect(packed.files).toEqual([
      'main.js',
      'shared/config.json',
      'src/config.json',
      'src/index.ts',
      'src/shared',
    ]);

    const out = join(await temp.make(), 'out');
    await extractArchive(packed.archive, out);
    expect(await readlink(join(out, 'src/config.json'))).toBe('../shared/config.json');
    expect(await readlink(join(out, 'src/shared'))).toBe('../shared');
    expect(await readlink(join(out, 'main.js'))).toBe('dist/not-built-yet.js');
    expect(await readFile(join(out, 'src/shared/config.json'), 'utf8')).toBe('{}');
  });

  it.each([
    ['a relative target', '../../outside.txt'],
    ['an absolute target', '/etc/passwd'],
    ['a target going out and back in', '../../PROJECT/src/index.ts'],
  ])('refuses a link leading out of the project, with %s', async (_case, target) => {
    const root = await projectWith({ 'src/index.ts': 'ok' });
    await symlink(target.replace('PROJECT', root.split('/').pop() ?? ''), join(root, 'src/escape'));
    const packing = packDirectory(root);
    await expect(packing).rejects.toThrow(SourceArchiveError);
    await expect(packing).rejects.toThrow('src/escape');
  });

  it('refuses a link that leaves through another link', async () => {
    const root = await projectWith({ 'src/index.ts': 'ok' });
    await symlink('.', join(root, 'here'));
    await symlink('here/../secret', join(root, 'sneaky'));
    await expect(packDirectory(root)).rejects.toThrow(
      'sneaky points outside the project directory',
    );
  });

  it('refuses a tarball over maxBytes, giving its size and the limit', async () => {
    const root = await projectWith({ 'src/index.ts': 'ok' });
    await writeFile(join(root, 'weights.bin'), randomBytes(64 * 1024));
    const packing = packDirectory(root, { maxBytes: 10_000 });
    await expect(packing).rejects.toThrow(SourceArchiveError);
    await expect(packing).rejects.toThrow(
      /the packed project is 0\.1 MiB \(6\d{4} bytes\), over the limit of 0\.0 MiB \(10000 bytes\)/,
    );
    expect((await packDirectory(root)).bytes).toBeGreaterThan(64 * 1024);
  });

  it('packs the same tree to the same bytes, whatever the files mtimes', async () => {
    const root = await projectWith({
      'b.txt': 'b',
      'a/c.txt': 'c',
      'a/b.txt': 'ab',
      'run.sh': { text: 'x', mode: 0o775 },
    });
    const first = await packDirectory(root);
    await utimes(join(root, 'b.txt'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const second = await packDirectory(root);
    expect(second.archive.equals(first.archive)).toBe(true);
    expect(first.files).toEqual(['a/b.txt', 'a/c.txt', 'b.txt', 'run.sh']);
  });

  it('refuses a project with nothing to pack, or a root that is not a directory', async () => {
    const root = await projectWith({ '.env': 'SECRET=1' });
    await expect(packDirectory(root)).rejects.toThrow('nothing to pack');
    await expect(packDirectory(join(root, 'missing'))).rejects.toThrow('is not a directory');
  });
});
