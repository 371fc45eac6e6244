export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

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

/**
 * A stored event (its type name and data) as a decider sees it. A stream holds only its own
 * aggregate's events, so the type is trusted here, in this one place.
 */
// The caller names its aggregate's event type: this is the one place a stored event is trusted.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function domainEventOf<Event extends DomainEvent>(stored: {
  readonly type: string;
  readonly data: JsonObject;
}): Event {
  return { type: stored.type, data: stored.data } as Event;
}

/** The state a history of events folds to. */
export function foldEvents<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
  events: readonly Event[],
): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}

/** The decider of a list of commands, each decided on the state the ones before it left. */
export function batchDecider<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
): Decider<State, readonly Command[], Event> {
  const evolve = (state: State, event: Event): State => decider.evolve(state, event);
  return {
    initialState: decider.initialState,
    evolve,
    decide(commands, state) {
      const events: Event[] = [];
      let current = state;
      for (const command of commands) {
        const decided = decider.decide(command, current);
        current = decided.reduce(evolve, current);
        events.push(...decided);
      }
      return events;
    },
  };
}
