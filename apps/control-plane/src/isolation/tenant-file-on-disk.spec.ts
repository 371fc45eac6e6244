import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkTenantFile, readTenantFile } from './tenant-file.js';

const asRoot = process.getuid?.() === 0;
const itAsRoot = asRoot ? it : it.skip;
const LIMITS = { maxBytes: 1024 };

describe('reading files a tenant planted in its tree', () => {
  let root: string;
  let outside: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tenant-file-'));
    outside = await mkdtemp(join(tmpdir(), 'tenant-file-outside-'));
    await writeFile(join(outside, 'secret'), 'platform only', { mode: 0o600 });
    await mkdir(join(outside, 'dir'));
    await writeFile(join(outside, 'dir', 'package.json'), '{"name":"not-yours"}');
    await writeFile(join(root, 'package.json'), '{"name":"app"}');
    await mkdir(join(root, 'apps', 'agent'), { recursive: true });
    await writeFile(join(root, 'apps', 'agent', 'langgraph.json'), '{"graphs":{}}');
    execFileSync('mkfifo', [join(root, 'fifo')]);
    await symlink(join(root, 'fifo'), join(root, 'to-fifo'));
    await symlink('/dev/zero', join(root, 'to-zero'));
    await symlink(join(outside, 'secret'), join(root, 'to-secret'));
    await symlink(join(outside, 'dir'), join(root, 'linked-dir'));
    await writeFile(join(root, 'big.json'), 'x'.repeat(LIMITS.maxBytes + 1));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('reads a regular file, also below directories', async () => {
    const read = await readTenantFile(root, 'package.json', LIMITS);
    expect(read.ok && read.content.toString()).toBe('{"name":"app"}');
    const nested = await readTenantFile(root, 'apps/agent/langgraph.json', LIMITS);
    expect(nested.ok && nested.content.toString()).toBe('{"graphs":{}}');
    expect(await checkTenantFile(root, 'apps/agent/langgraph.json', LIMITS)).toEqual({ ok: true });
  });

  it.each([
    ['fifo', 'not_a_file'],
    ['to-fifo', 'link'],
    ['to-zero', 'link'],
    ['to-secret', 'link'],
    ['linked-dir/package.json', 'link'],
    ['big.json', 'too_large'],
    ['apps', 'not_a_file'],
    ['absent.json', 'missing'],
    ['package.json/inside', 'missing'],
    ['../package.json', 'outside'],
  ])('refuses %s (%s) without reading it', async (path, refusal) => {
    const read = await readTenantFile(root, path, LIMITS);
    expect(read).toEqual({ ok: false, refusal, reason: expect.stringContaining(path) });
    expect(await checkTenantFile(root, path, LIMITS)).toMatchObject({ ok: false, refusal });
  });

  it('never holds the thread pool on a FIFO: more opens than it has workers all return', async () => {
    const reads = Array.from({ length: 16 }, () => readTenantFile(root, 'fifo', LIMITS));
    const refusals = (await Promise.all(reads)).map((read) => !read.ok && read.refusal);
    expect(new Set(refusals)).toEqual(new Set(['not_a_file']));
  });

  itAsRoot('refuses a file that is not the deployment user\u2019s', async () => {
    await writeFile(join(root, 'theirs.json'), '{}');
    await chown(join(root, 'theirs.json'), 0, 0);
    await chmod(join(root, 'theirs.json'), 0o600);
    const read = await readTenantFile(root, 'theirs.json', { ...LIMITS, ownerUid: 600_960 });
    expect(read).toMatchObject({ ok: false, refusal: 'not_owned' });
  });
});
