import { promises as fs } from 'node:fs';
import path from 'node:path';

const LOCK_FILE = 'berth.pid';

export interface DataDirLock {
  /** True when the lock was left by a Berth process that died without releasing it. */
  readonly ownerDied: boolean;
  release(): Promise<void>;
}

export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
}

/**
 * Makes this process the one Berth on a data directory. A lock whose process is gone was left by
 * a killed Berth: it is taken over, and the caller learns that its servers may be orphans.
 */
export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      return heldLock(file, attempt > 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(await fs.readFile(file, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && (owner === process.pid || (await isLiveNodeProcess(owner)))) {
      throw new DataDirInUseError(
        `Another Berth (pid ${owner}) is running on the data directory ${dataDir}. ` +
          'Stop it, or set BERTH_DATA_DIR to another directory.',
      );
    }
    await fs.rm(file, { force: true });
  }
  throw new DataDirInUseError(`Could not take the lock ${file}: another Berth keeps taking it`);
}

function heldLock(file: string, ownerDied: boolean): DataDirLock {
  let released = false;
  return {
    ownerDied,
    async release() {
      if (released) return;
      released = true;
      await fs.rm(file, { force: true });
    },
  };
}

/** Whether `pid` is a running Node.js process (a pid reused by another program is not). */
export async function isLiveNodeProcess(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const commandLine = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  // Without /proc a live pid is taken at its word; with it, a reused pid is told apart.
  return commandLine === undefined || commandLine.includes('node');
}
