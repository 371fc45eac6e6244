import type { ObjectLiteral } from 'typeorm';

/** The rows a batch touches: those known without reading, and the keys still to read. */
export interface RowLookup<Row> {
  readonly known: Row[];
  readonly missing: string[];
}

/**
 * A projection runner's read-model rows as it last wrote or read them (null: known to be absent),
 * least recently used dropped first. It is only as good as the runner's hold on the checkpoint:
 * the runner empties it whenever another runner or a rebuild may have written rows meanwhile.
 */
export class RowCache<Row extends ObjectLiteral> {
  private readonly rows = new Map<string, Row | null>();

  constructor(private readonly maxRows: number) {}

  lookup(keys: readonly string[]): RowLookup<Row> {
    const known: Row[] = [];
    const missing: string[] = [];
    for (const key of keys) {
      const row = this.rows.get(key);
      if (row === undefined) {
        missing.push(key);
        continue;
      }
      this.rows.delete(key);
      this.rows.set(key, row);
      if (row !== null) known.push(row);
    }
    return { known, missing };
  }

  remember(key: string, row: Row | null): void {
    if (this.maxRows === 0) return;
    this.rows.delete(key);
    this.rows.set(key, row);
    for (const oldest of this.rows.keys()) {
      if (this.rows.size <= this.maxRows) return;
      this.rows.delete(oldest);
    }
  }

  clear(): void {
    this.rows.clear();
  }

  get size(): number {
    return this.rows.size;
  }
}
