import { once } from 'node:events';
import { Unpack } from 'tar';
import { EntryPolicy } from './entry-policy.js';
import { SourceArchiveError } from './source-archive.error.js';

const CORRUPT_TAR_CODES = new Set(['TAR_BAD_ARCHIVE', 'TAR_ENTRY_INVALID']);

/**
 * node-tar's `Unpack` into `destination`, strict (every warning is an error) and with `policy`
 * admitting each entry before it is written. Feed it the decompressed tar with `write`, then
 * `end`; both reject with the first failure, after which the extraction is aborted.
 */
export class UnpackStream {
  private failure: Error | undefined;
  private readonly unpack: Unpack;

  constructor(destination: string, policy: EntryPolicy) {
    this.unpack = new Unpack({
      cwd: destination,
      strict: true,
      preservePaths: false,
      preserveOwner: false,
      noMtime: true,
      chmod: true,
      processUmask: 0o022,
      filter: (_path, entry) => {
        if (this.failure !== undefined || !('type' in entry)) return false;
        try {
          policy.admit(entry);
          return true;
        } catch (error) {
          this.fail(error);
          return false;
        }
      },
    });
    this.unpack.on('error', (error: unknown) => {
      this.failure ??= describe(error);
    });
  }

  async write(chunk: Buffer): Promise<void> {
    this.throwIfFailed();
    const flowing = this.unpack.write(chunk);
    this.throwIfFailed();
    if (!flowing) await this.until('drain');
    this.throwIfFailed();
  }

  async end(): Promise<void> {
    this.throwIfFailed();
    const closed = this.until('close');
    this.unpack.end();
    await closed;
    this.throwIfFailed();
  }

  /** Stops the extraction; writes still in flight fail once the destination is removed. */
  fail(error: unknown): void {
    this.failure ??= asError(error);
    this.unpack.abort(this.failure);
  }

  /** Resolves on `event`, or on an error (which `throwIfFailed` then reports). */
  private async until(event: 'drain' | 'close'): Promise<void> {
    await once(this.unpack, event).catch(() => undefined);
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}

/** Errors may come from another realm (Node's core under Jest): duck typing, no `instanceof`. */
function asError(error: unknown): Error {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? (error as Error) : new Error(String(error));
}

function describe(raw: unknown): Error {
  const error = asError(raw);
  if (error instanceof SourceArchiveError) return error;
  const { tarCode, code } = error as Error & { tarCode?: string; code?: string };
  if (code === 'TAR_SYMLINK_ERROR') {
    return new SourceArchiveError(`the archive writes through a symbolic link: ${error.message}`);
  }
  if (tarCode !== undefined && CORRUPT_TAR_CODES.has(tarCode)) {
    return new SourceArchiveError(`the archive is corrupt or truncated: ${error.message}`);
  }
  if (tarCode === 'TAR_ENTRY_ERROR' || tarCode === 'TAR_ENTRY_UNSUPPORTED') {
    return new SourceArchiveError(
      `the archive has an entry that cannot be extracted: ${error.message}`,
    );
  }
  return error;
}
