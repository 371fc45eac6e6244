import { readdirSync, statSync, watch, type Dirent, type FSWatcher } from 'node:fs';
import { join, relative } from 'node:path';

/** How long the files must be quiet before a change is acted on: an editor saves in bursts. */
const SETTLE_MS = 250;

/** Directories whose changes are never the application's code: dependencies, data, VCS. */
function isIgnoredName(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

/**
 * Calls `onChange` after files under `root` change and settle; one call at a time, and a change
 * made during a call leads to one more call after it. Each directory is watched on its own, so
 * that node_modules and dot-directories (data, VCS) are never walked.
 */
export function watchSources(
  root: string,
  onChange: (changed: readonly string[]) => Promise<void>,
  onError: (error: unknown) => void,
): { close(): void } {
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let pending = new Set<string>();
  let running: Promise<void> | undefined;
  let closed = false;

  const fire = (): void => {
    if (running || closed) return;
    const changed = [...pending];
    pending = new Set();
    running = onChange(changed)
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (pending.size > 0) fire();
      });
  };

  const changedPath = (path: string): void => {
    pending.add(relative(root, path));
    clearTimeout(timer);
    timer = setTimeout(fire, SETTLE_MS);
  };

  /** `appeared`: the directory is new, so what it already holds is a change too. */
  const watchTree = (dir: string, appeared: boolean): void => {
    if (closed || watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        const file = name?.toString();
        if (!file || isIgnoredName(file)) return;
        const path = join(dir, file);
        // A new directory is watched too; one that went away ends its watcher by itself.
        if (isDirectory(path)) watchTree(path, true);
        changedPath(path);
      });
    } catch {
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
    // Listed after its watcher started: a file written in between is seen by one or the other.
    for (const entry of entriesOf(dir)) {
      if (isIgnoredName(entry.name)) continue;
      if (entry.isDirectory()) watchTree(join(dir, entry.name), appeared);
      else if (appeared) changedPath(join(dir, entry.name));
    }
  };

  watchTree(root, false);
  return {
    close: () => {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
