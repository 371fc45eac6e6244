import { describe, expect, it } from '@jest/globals';
import { splitConnectionBudget } from './connection-budget.js';

const total = (sizes: { eventStore: number; queries: number; readModels: number }): number =>
  sizes.eventStore + sizes.queries + sizes.readModels;

describe('splitConnectionBudget', () => {
  it('gives the pools what the listening connections leave, never more', () => {
    expect(splitConnectionBudget(10, 2)).toEqual({ eventStore: 3, queries: 3, readModels: 2 });
    expect(splitConnectionBudget(5, 2)).toEqual({ eventStore: 1, queries: 1, readModels: 1 });
    for (let budget = 5; budget <= 200; budget += 1) {
      for (const dedicated of [1, 2]) {
        const sizes = splitConnectionBudget(budget, dedicated);
        expect(total(sizes) + dedicated).toBe(budget);
        expect(Math.min(sizes.eventStore, sizes.queries, sizes.readModels)).toBeGreaterThanOrEqual(
          1,
        );
      }
    }
  });

  it('refuses a budget that leaves a pool without a connection', () => {
    expect(() => splitConnectionBudget(4, 2)).toThrow(/at least 3 are needed/);
  });
});
