import type { EntitySchema, ObjectLiteral } from 'typeorm';
import type { EventStore, RecordedEvent } from '../event-store.port.js';

/**
 * A read model defined by a pure fold: for each event, which row it touches and what that row
 * becomes. Returning undefined from `evolve` removes the row.
 */
export interface Projection<Row extends ObjectLiteral> {
  readonly name: string;
  readonly entity: EntitySchema<Row>;
  /** The row's primary column. */
  readonly key: keyof Row & string;
  /**
   * The event types this projection folds: it is shown no other, and the log is read without
   * the data of the others. Omitted: every event.
   */
  readonly eventTypes?: ReadonlySet<string>;
  /**
   * Event types whose `evolve` makes the row anew, never looking at the one it is given (a
   * creation): a batch whose first event for a row is one of these does not read that row.
   */
  readonly makesRowAnew?: ReadonlySet<string>;
  /**
   * Makes a batch's events whole before they are folded, where an event refers to others for part
   * of its data (read from `store`). The keys its events touch stay the same.
   */
  prepare?(events: readonly RecordedEvent[], store: EventStore): Promise<readonly RecordedEvent[]>;
  /** The key of the row an event touches, or undefined when the projection ignores it. */
  keyOf(event: RecordedEvent): string | undefined;
  evolve(row: Row | undefined, event: RecordedEvent): Row | undefined;
}
