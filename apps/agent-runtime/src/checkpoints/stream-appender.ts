import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppendResult, EventStore, EventToAppend } from '#libs/event-store';

interface Waiting {
  readonly event: EventToAppend;
  readonly settle: (position: number | Error) => void;
}

/**
 * Appends to one stream per key in call order, gathering what comes within one turn of the event
 * loop, and what comes while an append is in flight, into one append: LangGraph issues a step's
 * checkpoint and writes without waiting for each other, so they reach the log in one commit
 * instead of one each (and a run whose steps never wait for I/O, all its steps' in one).
 */
export class StreamAppender {
  private readonly queues = new Map<string, Waiting[]>();

  /** `onFailure` hears of a failed append before anything else can be queued on that stream. */
  constructor(
    private readonly store: EventStore,
    private readonly onFailure: (stream: string) => void = () => undefined,
  ) {}

  /** Resolves with the event's stream position once it is in the log. */
  append(stream: string, event: EventToAppend): Promise<number> {
    return new Promise((resolve, reject) => {
      const settle = (position: number | Error): void => {
        if (position instanceof Error) reject(position);
        else resolve(position);
      };
      const queue = this.queues.get(stream);
      if (queue) {
        queue.push({ event, settle });
        return;
      }
      this.queues.set(stream, [{ event, settle }]);
      void this.drain(stream);
    });
  }

  private async drain(stream: string): Promise<void> {
    await nextTurn();
    for (;;) {
      const batch = this.queues.get(stream) ?? [];
      if (batch.length === 0) {
        this.queues.delete(stream);
        return;
      }
      this.queues.set(stream, []);
      let result: AppendResult;
      try {
        result = await this.store.append(
          stream,
          batch.map((waiting) => waiting.event),
          { expectedPosition: 'any' },
        );
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        this.onFailure(stream);
        // What was queued behind the failed events may build on them: it fails with them.
        const behind = this.queues.get(stream) ?? [];
        this.queues.set(stream, []);
        for (const waiting of [...batch, ...behind]) waiting.settle(failure);
        continue;
      }
      const first = result.streamPosition - batch.length + 1;
      batch.forEach((waiting, index) => {
        waiting.settle(first + index);
      });
    }
  }
}
