import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Temporary directories for a spec file; `removeAll` in `afterEach`. */
export class TempDirs {
  private readonly made: string[] = [];

  async make(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'berth-source-archive-'));
    this.made.push(dir);
    return dir;
  }

  async removeAll(): Promise<void> {
    await Promise.all(this.made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

/** Writes `files` (relative path → content) under `root`; a content `{ text, mode }` sets the mode. */
export async function writeTree(
  root: string,
  files: Record<string, string | { text: string; mode: number }>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    const { text, mode } = typeof content === 'string' ? { text: content, mode: 0o644 } : content;
    await writeFile(file, text);
    await chmod(file, mode);
  }
}
