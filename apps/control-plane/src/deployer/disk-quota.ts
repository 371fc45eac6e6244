import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MIB = 1024 * 1024;
const WATCH_INTERVAL_MS = 10_000;

/** A deployment's tree grew past its quota: what it holds and what it may. */
export class DiskQuotaExceededError extends Error {
  constructor(usedBytes: number, quotaBytes: number) {
    super(
      `the deployment's files take ${Math.ceil(usedBytes / MIB)} MiB, over its disk quota of ` +
        `${Math.round(quotaBytes / MIB)} MiB (its home and kept builds; BERTH_DEPLOYMENT_DISK_MB)`,
    );
  }
}

/**
 * The disk a deployment's tree may hold (its home and its kept builds; installed dependencies are
 * the tenant's cache, counted apart). Measured by the platform with du, links not followed, one
 * file system: before a runtime starts, during and after a build, and while a runtime serves.
 */
export class DiskQuota {
  constructor(
    readonly quotaBytes: number,
    private readonly intervalMs = WATCH_INTERVAL_MS,
  ) {}

  /** Bytes the tree takes on disk. */
  async usage(dir: string): Promise<number> {
    // du exits 1 when a file went away while it counted; its total is still printed.
    const { stdout } = await run('du', ['-s', '-x', '-B1', '--', dir], { env: {} }).catch(
      (error: unknown) => {
        const printed = (error as { stdout?: unknown }).stdout;
        return { stdout: typeof printed === 'string' ? printed : '' };
      },
    );
    return Number(stdout.split('\t')[0]) || 0;
  }

  /** Throws DiskQuotaExceededError when the tree is over its quota. */
  async check(dir: string): Promise<void> {
    const used = await this.usage(dir);
    if (used > this.quotaBytes) throw new DiskQuotaExceededError(used, this.quotaBytes);
  }

  /** Measures the tree every interval until stopped; calls `onOver` once when it is over. */
  watch(dir: string, onOver: (error: DiskQuotaExceededError) => void): () => void {
    let stopped = false;
    const timer = setInterval(() => {
      void this.check(dir).catch((error: unknown) => {
        if (stopped || !(error instanceof DiskQuotaExceededError)) return;
        stop();
        onOver(error);
      });
    }, this.intervalMs);
    timer.unref();
    const stop = (): void => {
      stopped = true;
      clearInterval(timer);
    };
    return stop;
  }
}
