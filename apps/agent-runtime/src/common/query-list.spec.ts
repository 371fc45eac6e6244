import { describe, expect, it } from '@jest/globals';
import { toQueryList } from './query-list.js';

describe('toQueryList', () => {
  it.each([
    [
      ['a', 'b'],
      ['a', 'b'],
    ],
    ['a,b', ['a', 'b']],
    ['a', ['a']],
    ['["a","b"]', ['a', 'b']],
    [' ["a"] ', ['a']],
  ])('reads %j as %j', (value, list) => {
    expect(toQueryList({ value })).toEqual(list);
  });

  it('leaves what is no list for the validators', () => {
    expect(toQueryList({ value: '[not json' })).toBe('[not json');
    expect(toQueryList({ value: 3 })).toBe(3);
    expect(toQueryList({ value: '{"a":1}' })).toEqual(['{"a":1}']);
  });
});
