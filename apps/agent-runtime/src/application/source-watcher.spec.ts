import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchSources } from './source-watcher.js';

describe('watchSources', () => {
  let dir: string;
  let watcher: { close(): void } | undefined;

  afterEach(async () => {
    watcher?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports changed files once they settle, in new directories too, never in node_modules or dot-directories', async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-watch-'));
    await mkdir(join(dir, 'node_modules', 'pkg'), { recursive: true });
    await mkdir(join(dir, '.berth'));
    const calls: string[][] = [];
    let changed: (files: readonly string[]) => void = () => undefined;
    const next = () =>
      new Promise<readonly string[]>((resolve) => {
        changed = resolve;
      });
    watcher = watchSources(
      dir,
      (files) => {
        calls.push([...files]);
        changed(files);
        return Promise.resolve();
      },
      (error) => {
        throw error;
      },
    );

    const first = next();
    await writeFile(join(dir, 'node_modules', 'pkg', 'index.js'), 'x');
    await writeFile(join(dir, '.berth', 'data'), 'x');
    await writeFile(join(dir, 'graph.ts'), 'export {}');
    await writeFile(join(dir, 'graph.ts'), 'export const a = 1;');
    expect(await first).toEqual(['graph.ts']);

    const second = next();
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'util.ts'), 'export {}');
    expect(await second).toEqual(expect.arrayContaining(['src', join('src', 'util.ts')]));
    expect(
      calls.flat().some((file) => file.includes('node_modules') || file.includes('.berth')),
    ).toBe(false);
  });
});
