import type { ReadableSubscription } from '@eventstore/db-client';
import type { RecordedEvent, Subscription } from '../event-store.port.js';

/**
 * Adapts a client subscription, a readable stream whose buffer gives backpressure.
 * Caught-up, fell-behind and checkpoint messages never reach it: the client emits them as
 * stream events, not as data.
 */
export class EventStoreDbSubscription<Resolved> implements Subscription {
  #closed = false;
  #iterator: AsyncGenerator<RecordedEvent> | undefined;

  constructor(
    private readonly source: ReadableSubscription<Resolved>,
    private readonly toEvent: (resolved: Resolved) => RecordedEvent | undefined,
  ) {}

  /** Every call continues the same iteration: a subscription has one cursor. */
  [Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    this.#iterator ??= this.events();
    return this.#iterator;
  }

  private async *events(): AsyncGenerator<RecordedEvent> {
    try {
      for await (const resolved of this.source) {
        const event = this.toEvent(resolved);
        if (event !== undefined) yield event;
      }
    } catch (error) {
      if (!this.#closed) throw error;
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // Unsubscribing fails only when the subscription never started, an error its reader already got.
    await this.source.unsubscribe().catch(() => undefined);
    this.source.destroy();
  }
}
