import { chmod, mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * The data directory as tenants' builds and runtimes may see it: they can pass through it to
 * their own directories (0711) but list and read nothing else; keys, uploads and the records of
 * running commands are the platform's alone.
 */
export async function restrictDataDirectory(dataDir: string, buildsDir: string): Promise<void> {
  const passable = [
    dataDir,
    buildsDir,
    join(buildsDir, 'deployments'),
    join(buildsDir, 'cache'),
    join(buildsDir, 'cache', 'dependencies'),
    join(buildsDir, 'cache', 'npm'),
  ];
  for (const dir of passable) {
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o711);
  }
  for (const dir of ['uploads', 'run']) {
    await mkdir(join(dataDir, dir), { recursive: true });
    await chmod(join(dataDir, dir), 0o700);
  }
  for (const file of ['secrets.key', 'postgres.password']) {
    await chmod(join(dataDir, file), 0o600).catch(() => undefined);
  }
}

/** The first directory on the way to `dir` that other users cannot pass through. */
export async function firstUntraversable(dir: string): Promise<string | undefined> {
  const chain: string[] = [];
  for (let current = dirname(dir); ; current = dirname(current)) {
    chain.unshift(current);
    if (current === dirname(current)) break;
  }
  for (const current of chain) {
    if (((await stat(current)).mode & 0o001) === 0) return current;
  }
  return undefined;
}

/** Of the given files, those another user could not read (file or a directory on its way). */
export async function unreadableByOthers(files: readonly string[]): Promise<string[]> {
  const unreadable: string[] = [];
  for (const file of files) {
    const blocked = await firstUntraversable(file);
    const mode = (await stat(file).catch(() => undefined))?.mode ?? 0;
    if (blocked) unreadable.push(blocked);
    else if ((mode & 0o004) === 0) unreadable.push(file);
  }
  return [...new Set(unreadable)];
}
