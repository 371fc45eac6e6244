import { describe, expect, it, beforeEach, afterEach } from '@jest/globals';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planInstall } from './install-plan.js';

describe('planInstall', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'berth-install-plan-'));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const put = (file: string, content: string): Promise<void> =>
    writeFile(join(root, file), content);

  it.each([
    ['package-lock.json', 'npm ci --no-audit --no-fund --prefer-offline'],
    ['npm-shrinkwrap.json', 'npm ci --no-audit --no-fund --prefer-offline'],
    ['yarn.lock', 'yarn install --frozen-lockfile'],
    ['pnpm-lock.yaml', 'pnpm install --frozen-lockfile'],
    ['bun.lock', 'bun install --frozen-lockfile'],
    ['bun.lockb', 'bun install --frozen-lockfile'],
  ])('detects the command from %s', async (lockfile, command) => {
    await put('package.json', '{"name":"app"}');
    await put(lockfile, 'lock');

    const plan = await planInstall(root, null);

    expect(plan.command).toBe(command);
    expect(plan.reason).toBe(`detected from ${lockfile}`);
  });

  it('uses npm install for a package.json without a lockfile', async () => {
    await put('package.json', '{"name":"app"}');

    const plan = await planInstall(root, null);

    expect(plan.command).toBe('npm install --no-audit --no-fund --prefer-offline');
    expect(plan.reason).toBe('package.json without a lockfile');
  });

  it('has nothing to install without a package.json or a lockfile', async () => {
    const plan = await planInstall(root, null);

    expect(plan.command).toBeUndefined();
    expect(plan.reason).toBe('no package.json: nothing to install');
    expect(plan.cacheKey).toMatch(/^[0-9a-f]{32}$/);
  });

  it('prefers a configured install command, but still keys on the lockfile', async () => {
    await put('package.json', '{"name":"app"}');
    await put('yarn.lock', 'lock v1');
    const before = await planInstall(root, 'make deps');

    expect(before.command).toBe('make deps');
    expect(before.reason).toBe('install_command');

    await put('yarn.lock', 'lock v2');
    const after = await planInstall(root, 'make deps');

    expect(after.command).toBe('make deps');
    expect(after.cacheKey).not.toBe(before.cacheKey);
  });

  it('fails on a package.json or a lockfile it may not read, naming it', async () => {
    await symlink('/dev/zero', join(root, 'package.json'));
    await expect(planInstall(root, null)).rejects.toThrow(/^package\.json is .*symbolic link/);

    await rm(join(root, 'package.json'));
    await put('package.json', '{"name":"app"}');
    await symlink('/etc/passwd', join(root, 'yarn.lock'));
    await expect(planInstall(root, null)).rejects.toThrow(/^yarn\.lock is .*symbolic link/);
  });

  it('gives the same key for the same inputs', async () => {
    await put('package.json', '{"name":"app"}');
    await put('package-lock.json', '{"lockfileVersion":3}');

    const first = await planInstall(root, null);
    const second = await planInstall(root, null);

    expect(second).toEqual(first);
  });

  it('changes the key when package.json, a lockfile or the command changes', async () => {
    await put('package.json', '{"name":"app"}');
    await put('package-lock.json', '{"lockfileVersion":3}');
    const base = (await planInstall(root, null)).cacheKey;

    await put('package.json', '{"name":"app","version":"2"}');
    const manifestChanged = (await planInstall(root, null)).cacheKey;

    await put('package-lock.json', '{"lockfileVersion":3,"x":1}');
    const lockChanged = (await planInstall(root, null)).cacheKey;

    const commandChanged = (await planInstall(root, 'npm ci')).cacheKey;

    await put('pnpm-lock.yaml', 'lockfileVersion: 9');
    const lockAdded = (await planInstall(root, 'npm ci')).cacheKey;

    const keys = [base, manifestChanged, lockChanged, commandChanged, lockAdded];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
