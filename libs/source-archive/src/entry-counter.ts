import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';

/**
 * Counts the entries of a gzip tarball as its bytes stream past, without writing anything or
 * holding more than a chunk: an upload with too many entries is refused while it arrives. A
 * stream that is not a readable tarball is not counted further (the build reports it).
 */
export class ArchiveEntryCounter {
  entries = 0;
  private readonly gunzip = createGunzip();
  private readonly parser: Parser;
  private readable = true;
  private finished = false;
  private readonly done: Promise<void>;

  constructor(private readonly maxEntries: number) {
    this.parser = new Parser({
      onReadEntry: (entry: ReadEntry) => {
        this.entries += 1;
        entry.resume();
      },
    });
    this.done = new Promise((resolve) => {
      const stop = (): void => {
        this.readable = false;
        resolve();
      };
      this.gunzip.on('error', stop);
      this.parser.on('error', stop);
      this.parser.on('end', resolve);
      this.parser.on('close', resolve);
    });
    this.gunzip.pipe(this.parser);
  }

  get tooMany(): boolean {
    return this.entries > this.maxEntries;
  }

  feed(chunk: Buffer): void {
    if (this.readable && !this.tooMany) this.gunzip.write(chunk);
  }

  /** Resolves once every byte fed is counted. */
  async finish(): Promise<void> {
    if (!this.finished) {
      this.finished = true;
      if (this.readable && !this.tooMany) this.gunzip.end();
      else this.gunzip.destroy();
    }
    await this.done;
  }
}
