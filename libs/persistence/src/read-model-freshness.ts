import type { ObjectLiteral } from 'typeorm';
import type { EventStore, ProjectionRunner } from '#libs/event-store';

const FRESHNESS_TIMEOUT_MS = 5_000;

/**
 * Read your writes on any replica: before a read model answers, it catches up with every event
 * committed when the request arrived.
 */
export class ReadModelFreshness {
  constructor(
    private readonly store: EventStore,
    private readonly runners: readonly ProjectionRunner<ObjectLiteral>[],
  ) {}

  async catchUp(projection: string): Promise<void> {
    const runner = this.runners.find((candidate) => candidate.projection.name === projection);
    if (!runner) throw new Error(`No projection named ${projection}`);
    const head = await this.store.headPosition();
    await runner.waitUntilPast(head, FRESHNESS_TIMEOUT_MS);
  }
}
