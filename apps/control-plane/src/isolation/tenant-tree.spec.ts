import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDirectory, handOver, removeTenantTree, writePlatformFile } from './tenant-tree.js';

const asRoot = process.getuid?.() === 0;
const TENANT = { uid: 600_950, gid: 600_951 };
if (!asRoot) console.warn('tenant-tree: the specs that change owners are skipped (not root)');
const itAsRoot = asRoot ? it : it.skip;

describe('what the platform does in a tenant tree', () => {
  let dir: string;
  let victim: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tenant-tree-'));
    // As the data directory is: passable by the tenant's user, who empties what it owns.
    await chmod(dir, 0o711);
    victim = join(dir, 'victim');
    await mkdir(victim, { mode: 0o700 });
    await writeFile(join(victim, 'secret'), 'platform only', { mode: 0o600 });
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('replaces a link planted where a directory belongs, never touching its target', async () => {
    await symlink(victim, join(dir, 'home'));
    await ensureDirectory(join(dir, 'home'), undefined, 0o700);
    expect((await lstat(join(dir, 'home'))).isDirectory()).toBe(true);
    expect(await readdir(join(dir, 'home'))).toEqual([]);
    expect((await stat(victim)).mode & 0o777).toBe(0o700);
  });

  it('writes its marker in place of a planted link, not through it', async () => {
    await symlink(join(victim, 'secret'), join(dir, '.berth-built'));
    await writePlatformFile(join(dir, '.berth-built'), 'built');
    expect(await readFile(join(victim, 'secret'), 'utf8')).toBe('platform only');
    expect(await readFile(join(dir, '.berth-built'), 'utf8')).toBe('built');
    expect((await lstat(join(dir, '.berth-built'))).isFile()).toBe(true);
  });

  itAsRoot(
    "gives a home to the tenant without following a link to the platform's files",
    async () => {
      await symlink(victim, join(dir, 'home'));
      await ensureDirectory(join(dir, 'home'), TENANT, 0o700);
      expect(await lstat(join(dir, 'home'))).toMatchObject({ uid: TENANT.uid, gid: TENANT.gid });
      expect(await stat(victim)).toMatchObject({ uid: 0, gid: 0 });
    },
  );

  itAsRoot('removes what a tenant planted, with its rights, and leaves the targets', async () => {
    const tree = join(dir, 'deployment');
    await mkdir(join(tree, 'revisions', 'r', 'source', 'closed'), { recursive: true });
    await mkdir(join(tree, 'home'));
    await symlink(victim, join(tree, 'home', 'link-to-victim'));
    await symlink(join(victim, 'secret'), join(tree, 'revisions', 'r', 'source', 'file-link'));
    await writeFile(join(tree, 'revisions', 'r', 'source', 'closed', 'kept'), 'x');
    for (const path of [
      join(tree, 'home'),
      join(tree, 'home', 'link-to-victim'),
      join(tree, 'revisions', 'r', 'source'),
      join(tree, 'revisions', 'r', 'source', 'closed'),
      join(tree, 'revisions', 'r', 'source', 'closed', 'kept'),
      join(tree, 'revisions', 'r', 'source', 'file-link'),
    ]) {
      await chown(path, TENANT.uid, TENANT.gid).catch(() => undefined);
    }
    // A directory its owner closed is opened again by the owner before it is emptied.
    await chmod(join(tree, 'revisions', 'r', 'source', 'closed'), 0o500);
    await removeTenantTree(tree, TENANT);
    await expect(lstat(tree)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(victim, 'secret'), 'utf8')).toBe('platform only');
  });

  itAsRoot('removes a home whose owner closed a directory inside another it closed', async () => {
    const tree = join(dir, 'deployment');
    const home = join(tree, 'home');
    await mkdir(join(home, 'd1', 'd2', 'd3'), { recursive: true });
    await writeFile(join(home, 'd1', 'd2', 'd3', 'file'), 'x');
    for (const path of [home, 'd1', 'd1/d2', 'd1/d2/d3', 'd1/d2/d3/file'].map((p) =>
      p === home ? p : join(home, p),
    )) {
      await chown(path, TENANT.uid, TENANT.gid);
    }
    // As \`mkdir -p d1/d2 && chmod 000 d1/d2 && chmod 100 d1\` leaves it, one level deeper.
    await chmod(join(home, 'd1', 'd2', 'd3'), 0o000);
    await chmod(join(home, 'd1', 'd2'), 0o000);
    await chmod(join(home, 'd1'), 0o100);
    await removeTenantTree(tree, TENANT);
    await expect(lstat(tree)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  itAsRoot('removes, following no link, what the tenant\'s user itself could not', async () => {
    const tree = join(dir, 'deployment');
    const home = join(tree, 'home');
    await mkdir(join(home, 'not-its-own', 'deeper'), { recursive: true });
    await writeFile(join(home, 'not-its-own', 'deeper', 'file'), 'x');
    await symlink(victim, join(home, 'not-its-own', 'link-to-victim'));
    await chown(home, TENANT.uid, TENANT.gid);
    await chmod(join(home, 'not-its-own', 'deeper'), 0o000);
    await removeTenantTree(tree, TENANT);
    await expect(lstat(tree)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(victim, 'secret'), 'utf8')).toBe('platform only');
  });

  itAsRoot('hands an extracted tree over deepest first, links themselves only', async () => {
    const source = join(dir, 'source');
    await mkdir(join(source, 'src'), { recursive: true });
    await writeFile(join(source, 'src', 'index.ts'), 'export {}');
    await symlink(victim, join(source, 'link'));
    await handOver(source, TENANT);
    for (const path of [source, join(source, 'src'), join(source, 'src', 'index.ts')]) {
      expect(await lstat(path)).toMatchObject({ uid: TENANT.uid });
    }
    expect(await lstat(join(source, 'link'))).toMatchObject({ uid: TENANT.uid });
    expect(await stat(victim)).toMatchObject({ uid: 0 });
  });
});
