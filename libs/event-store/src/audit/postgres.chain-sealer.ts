import type pg from 'pg';
import { compareLogPositions, type LogPosition } from '../log-position.js';
import { GENESIS_HASH, linkOf } from './chain-hash.js';
import {
  insertLinks,
  readLastLink,
  readStoredEvents,
  type SealedLink,
} from './postgres.chain-rows.js';

const UNIQUE_VIOLATION = '23505';

export interface ChainSealerOptions {
  /** How often the sealer looks for events to seal; 0: only when asked (`sealPending`). */
  readonly intervalMs: number;
  readonly batchSize?: number;
  readonly onError: (error: unknown) => void;
}

/**
 * Follows the log in order, off the append path, and writes each event's link into `es_chain`.
 * Any number of processes may seal the same log: a batch another one sealed first is refused by
 * the chain's key, and this one goes on from the new end.
 */
export class ChainSealer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private closed = false;
  /** The last append of this process not known to be sealed: an idle process asks nothing. */
  private unsealed: LogPosition | undefined;
  private readonly batchSize: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: ChainSealerOptions,
  ) {
    this.batchSize = options.batchSize ?? 500;
  }

  start(): void {
    if (this.options.intervalMs > 0) this.schedule();
  }

  /**
   * Seals every event committed so far; how many this call sealed. `durable`: committed to disk
   * before it returns, as a head about to be shown must be.
   */
  sealPending(durable = false): Promise<number> {
    // One round at a time: a round asked for while one runs starts after it, to see its end.
    const round = (this.running ?? Promise.resolve(0))
      .catch(() => 0)
      .then(() => this.sealAll(durable));
    this.running = round;
    return round;
  }

  /** Told of each append of this process (its last event's position): a timed round seals it. */
  noteAppend(position: LogPosition): void {
    if (!this.unsealed || compareLogPositions(position, this.unsealed) > 0)
      this.unsealed = position;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      (this.unsealed ? this.sealPending() : Promise.resolve(0))
        .catch(this.options.onError)
        .finally(() => {
          this.schedule();
        });
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Forgets the appends of this process the chain now covers. */
  private sealedThrough(end: SealedLink): void {
    const sealed = { commit: BigInt(end.transactionId), prepare: BigInt(end.globalPosition) };
    if (this.unsealed && compareLogPositions(this.unsealed, sealed) <= 0) this.unsealed = undefined;
  }

  private async sealAll(durable: boolean): Promise<number> {
    let sealed = 0;
    for (;;) {
      const batch = await this.sealBatch(durable);
      if (batch === 'raced') continue;
      sealed += batch;
      if (batch < this.batchSize || this.closed) return sealed;
    }
  }

  /** How many events it sealed, or 'raced': another sealer wrote these positions first. */
  private async sealBatch(durable: boolean): Promise<number | 'raced'> {
    const last = await readLastLink(this.pool);
    const events = await readStoredEvents(this.pool, last, this.batchSize);
    if (events.length === 0) {
      if (last) this.sealedThrough(last);
      return 0;
    }
    let previousHash = last?.hash ?? GENESIS_HASH;
    let position = last?.position ?? 0;
    const links: SealedLink[] = events.map((event) => {
      position += 1;
      const link = linkOf(previousHash, position, event);
      previousHash = link.hash;
      return { ...link, transactionId: event.transactionId, globalPosition: event.globalPosition };
    });
    const end = links.at(-1);
    try {
      await insertLinks(this.pool, links, durable);
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return 'raced';
      throw error;
    }
    if (end) this.sealedThrough(end);
    return links.length;
  }
}
