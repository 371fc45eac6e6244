import { describe, expect, it } from '@jest/globals';
import type { Decider } from './decider.js';
import { deciderSpecification } from './decider-specification.js';
import { conflict } from './domain-error.js';

type CounterEvent = { type: 'Added'; data: { by: number } };
type CounterCommand = { add: number };
const counter: Decider<number, CounterCommand, CounterEvent> = {
  initialState: 0,
  evolve: (total, event) => total + event.data.by,
  decide: ({ add }, total) => {
    if (total + add > 10) throw conflict(`over the limit at ${total}`);
    return add === 0 ? [] : [{ type: 'Added', data: { by: add } }];
  },
};
const added = (by: number): CounterEvent => ({ type: 'Added', data: { by } });
const spec = deciderSpecification(counter);

describe('deciderSpecification', () => {
  it('passes when the decision is the expected events, and folds them into the state', () => {
    spec
      .given([added(2)])
      .when({ add: 3 })
      .then([added(3)]);
    expect(
      spec
        .given([added(2)])
        .when({ add: 3 })
        .state(),
    ).toBe(5);
  });

  it('fails when the decision differs from the expected events', () => {
    expect(() => {
      spec
        .given([])
        .when({ add: 3 })
        .then([added(4)]);
    }).toThrow();
    expect(() => {
      spec
        .given([])
        .when({ add: 0 })
        .then([added(0)]);
    }).toThrow();
  });

  it('checks a refusal by its code and message', () => {
    spec
      .given([added(9)])
      .when({ add: 2 })
      .thenFails('conflict', /over the limit at 9/);
    expect(() => {
      spec
        .given([added(9)])
        .when({ add: 2 })
        .thenFails('not_found', /over/);
    }).toThrow(/refused as conflict/);
    expect(() => {
      spec
        .given([added(9)])
        .when({ add: 2 })
        .thenFails('conflict', /under/);
    }).toThrow(/does not match/);
    expect(() => {
      spec.given([]).when({ add: 2 }).thenFails('conflict', /over/);
    }).toThrow(/expected a conflict refusal/);
  });
});
