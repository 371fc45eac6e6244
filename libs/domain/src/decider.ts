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

/** The state a history of events folds to. */
export function foldEvents<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
  events: readonly Event[],
): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}
