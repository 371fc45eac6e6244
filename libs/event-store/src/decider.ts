import { WrongExpectedPositionError } from './event-store.errors.js';
import type { AppendResult, EventStore, JsonObject } from './event-store.port.js';
import { uuidv7 } from './uuid-v7.js';

/** An event as deciders see it: its stored type name and its JSON data. */
export interface DomainEvent {
  readonly type: string;
  readonly data: JsonObject;
}

/** Pure: no clock, no ids, no I/O. Ids and `now` come in on the command. */
export interface Decider<State, Command, Event extends DomainEvent> {
  readonly initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

export interface CommandOutcome<State, Event> {
  /** The state after the new events. */
  readonly state: State;
  readonly events: Event[];
  /** Undefined when the decision produced no event. */
  readonly appended: AppendResult | undefined;
}

const MAX_ATTEMPTS = 16;

/** A random pause that grows with each lost race, so that contending writers spread out. */
function backOff(attempt: number): Promise<void> {
  const ceilingMs = Math.min(100, 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceilingMs));
}

/**
 * Reads the stream, folds it, decides and appends at the position it read. A concurrent writer
 * makes the append fail; the command is then decided again on the new state, after a short
 * random pause, up to MAX_ATTEMPTS times; then the conflict reaches the caller (409).
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  /** Stored with every event the command appends (who caused it, for an audit trail). */
  metadata?: JsonObject,
): Promise<CommandOutcome<State, Event>> {
  for (let attempt = 1; ; attempt += 1) {
    const stored = await store.readStream(streamId);
    const current = stored.reduce(
      (state, event) => decider.evolve(state, { type: event.type, data: event.data } as Event),
      decider.initialState,
    );
    const events = decider.decide(command, current);
    const state = events.reduce((s, event) => decider.evolve(s, event), current);
    if (events.length === 0) return { state, events, appended: undefined };
    const last = stored.at(-1);
    try {
      const appended = await store.append(
        streamId,
        events.map((event) => ({
          eventId: uuidv7(),
          type: event.type,
          data: event.data,
          metadata,
        })),
        { expectedPosition: last ? last.streamPosition : 'no_stream' },
      );
      return { state, events, appended };
    } catch (error) {
      if (!(error instanceof WrongExpectedPositionError) || attempt >= MAX_ATTEMPTS) throw error;
      await backOff(attempt);
    }
  }
}
