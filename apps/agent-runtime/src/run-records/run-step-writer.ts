import { once } from 'node:events';
import { EventEmitter } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { uuidv7, type EventStore, type EventToAppend, type JsonValue } from '#libs/event-store';
import { runStream } from './run.events.js';
import { ValuesChunkEncoder, type FinishedValues } from './values-chunk-delta.js';

/** Chunks waiting beyond this make the producer wait for the log to catch up. */
const HIGH_WATER_MARK = 5_000;

/**
 * Appends a run's stream chunks as `RunStepEmitted` events in batches: the chunks of one turn of
 * the event loop go together, and while one append is in flight, new chunks gather and go together
 * in the next. A graph whose steps never wait for I/O runs in one turn, so its whole run's chunks
 * make one append. A chunk is numbered (`seq`) as it comes.
 * Every append names the position the writer expects, so a worker that lost its claim on the run
 * fails at its next append instead of interleaving with its successor.
 */
export class RunStepWriter {
  private queue: EventToAppend[] = [];
  private flushing: Promise<void> | undefined;
  private failure: Error | undefined;
  private readonly drained = new EventEmitter();
  /** A `values` chunk is stored as what changed since the one before (see ValuesChunkEncoder). */
  private readonly values: ValuesChunkEncoder;

  constructor(
    private readonly store: EventStore,
    private readonly runId: string,
    private position: number,
    private nextSeq: number,
    /** The final values of the thread's earlier run, which the run's first values may extend. */
    earlier?: FinishedValues,
  ) {
    this.values = new ValuesChunkEncoder(earlier);
  }

  get streamPosition(): number {
    return this.position;
  }

  /** Queues a chunk; resolves at once unless too many are waiting. */
  async emit(event: string, data: JsonValue): Promise<void> {
    this.throwIfFailed();
    this.queue.push(this.step(event, data));
    this.startFlushing();
    if (this.queue.length >= HIGH_WATER_MARK) await once(this.drained, 'drained');
  }

  /** The run's final values as its outcome stores them (see ValuesChunkEncoder.encodeFinal). */
  finalValues(values: JsonValue): ReturnType<ValuesChunkEncoder['encodeFinal']> {
    return this.values.encodeFinal(values);
  }

  /** Appends other events after the chunks queued so far, in the same batch. */
  async append(events: readonly EventToAppend[]): Promise<void> {
    this.throwIfFailed();
    this.queue.push(...events);
    await this.flush();
  }

  /** Resolves when everything queued is in the log. */
  async flush(): Promise<void> {
    this.startFlushing();
    await this.flushing;
    this.throwIfFailed();
  }

  /** Only with chunks waiting: the loop then reaches its first await before it can finish. */
  private startFlushing(): void {
    if (!this.flushing && this.queue.length > 0) this.flushing = this.flushLoop();
  }

  private step(event: string, data: JsonValue): EventToAppend {
    const seq = this.nextSeq;
    this.nextSeq += 1;
    const stored = this.values.encode(seq, event, data);
    return { eventId: uuidv7(), type: 'RunStepEmitted', data: { seq, event, ...stored } };
  }

  private async flushLoop(): Promise<void> {
    try {
      await nextTurn();
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        const result = await this.store.append(runStream(this.runId), batch, {
          expectedPosition: this.position,
        });
        this.position = result.streamPosition;
        this.drained.emit('drained');
      }
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.drained.emit('drained');
    } finally {
      this.flushing = undefined;
    }
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
