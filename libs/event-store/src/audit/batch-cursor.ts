/** Reads a sequence in batches and hands it out one item at a time. */
export class BatchCursor<T> {
  private buffer: T[] = [];
  private index = 0;
  private exhausted = false;

  constructor(private readonly readAfter: (last: T | undefined) => Promise<T[]>) {}

  private last: T | undefined;

  /** The next item without taking it; undefined at the end. */
  async peek(): Promise<T | undefined> {
    if (this.index < this.buffer.length) return this.buffer[this.index];
    if (this.exhausted) return undefined;
    const next = await this.readAfter(this.last);
    this.buffer = next;
    this.index = 0;
    if (next.length === 0) this.exhausted = true;
    return next[0];
  }

  async take(): Promise<T | undefined> {
    const item = await this.peek();
    if (item !== undefined) {
      this.index += 1;
      this.last = item;
    }
    return item;
  }
}
