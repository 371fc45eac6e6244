import { describe, expect, it } from '@jest/globals';
import { ValidationFailedError } from '#libs/http';
import { compileStoreFilter } from './store-filter.js';

describe('store filters in SQL', () => {
  it('numbers its parameters from the first it is given', () => {
    const { conditions, params } = compileStoreFilter(
      { kind: 'note', 'meta.rank': { $gte: 2 }, tags: ['a'] },
      3,
    );
    expect(conditions).toHaveLength(3);
    // A scalar is looked up by containment, which the GIN index on the value answers.
    expect(conditions[0]).toBe('value @> $3::jsonb');
    expect(conditions[1]).toContain('$4::text[]');
    expect(params).toEqual(['{"kind":"note"}', ['meta', 'rank'], 2, ['tags'], '["a"]']);
  });

  it('compares strings as strings and numbers as numbers', () => {
    expect(compileStoreFilter({ a: { $lt: 'm' } }, 1).conditions[0]).toContain("'string'");
    expect(compileStoreFilter({ a: { $lt: 3 } }, 1).conditions[0]).toContain("'number'");
  });

  it.each([
    [{ a: { $regex: 'x' } }, /Unknown operator \$regex/],
    [{ a: { $gt: [1] } }, /compares with a number or a string/],
    [{ a: { $in: 'x' } }, /takes an array/],
    [{ '': 1 }, /cannot be empty/],
  ])('refuses %j', (filter, message) => {
    expect(() => compileStoreFilter(filter, 1)).toThrow(ValidationFailedError);
    expect(() => compileStoreFilter(filter, 1)).toThrow(message);
  });
});
