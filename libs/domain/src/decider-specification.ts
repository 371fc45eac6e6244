import { deepStrictEqual, fail } from 'node:assert/strict';
import { foldEvents, type Decider, type DomainEvent } from './decider.js';
import { DomainError, type DomainErrorCode } from './domain-error.js';

export interface DecisionExpectations<State, Event> {
  /** The decision is exactly these events. */
  then(expected: readonly Event[]): void;
  /** The decision is refused with this code, its message matching `message`. */
  thenFails(code: DomainErrorCode, message: RegExp): void;
  /** The decided events, for assertions on part of them. */
  events(): Event[];
  /** The state after the history and the decided events. */
  state(): State;
}

export interface DeciderSpecification<State, Command, Event> {
  given(history: readonly Event[]): {
    when(command: Command): DecisionExpectations<State, Event>;
  };
}

/**
 * Given a history, when a command is decided, then these events (or this refusal). Assertions use
 * node:assert, so the helper loads no test framework and runs under any.
 */
export function deciderSpecification<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
): DeciderSpecification<State, Command, Event> {
  return {
    given: (history) => ({
      when: (command) => {
        const before = foldEvents(decider, history);
        const decide = (): Event[] => decider.decide(command, before);
        return {
          then: (expected) => {
            deepStrictEqual(decide(), expected);
          },
          thenFails: (code, message) => {
            expectRefusal(decide, code, message);
          },
          events: decide,
          state: () => decide().reduce((state, event) => decider.evolve(state, event), before),
        };
      },
    }),
  };
}

function expectRefusal(act: () => unknown, code: DomainErrorCode, message: RegExp): void {
  let decided: unknown;
  try {
    decided = act();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    deepStrictEqual(error.code, code, `refused as ${error.code}: ${error.message}`);
    if (!message.test(error.message)) fail(`refusal "${error.message}" does not match ${message}`);
    return;
  }
  fail(`expected a ${code} refusal, but the command decided ${JSON.stringify(decided)}`);
}
