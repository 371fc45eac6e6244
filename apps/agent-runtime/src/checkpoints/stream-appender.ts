import type { AppendResult, EventStore, EventToAppend } from '#libs/event-store';

interface Waiting {
  readonly events: readonly EventToAppend[];
  /** With the position of the last of its events. */
  readonly settle: (position: number | Error) => void;
}

/**
 * Appends to one stream per key in call order, gathering what comes while an append is in
 * flight into the next one: LangGraph issues a step's checkpoint and writes without waiting for
 * each other, so they reach the log in one commit instead of one each.
 */
export class StreamAppender {
  private readonly queues = new Map<string, Waiting[]>();

  constructor(private readonly store: EventStore) {}

  /** Resolves with the stream position of the last event once they are all in the log, in one commit. */
  append(stream: string, events: readonly EventToAppend[]): Promise<number> {
    return new Promise((resolve, reject) => {
      const settle = (position: number | Error): void => {
        if (position instanceof Error) reject(position);
        else resolve(position);
      };
      const queue = this.queues.get(stream);
      if (queue) {
        queue.push({ events, settle });
        return;
      }
      this.queues.set(stream, [{ events, settle }]);
      void this.drain(stream);
    });
  }

  private async drain(stream: string): Promise<void> {
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
          batch.flatMap((waiting) => waiting.events),
          { expectedPosition: 'any' },
        );
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const waiting of batch) waiting.settle(failure);
        continue;
      }
      let position = result.streamPosition - batch.reduce((n, w) => n + w.events.length, 0);
      for (const waiting of batch) {
        position += waiting.events.length;
        waiting.settle(position);
      }
    }
  }
}
