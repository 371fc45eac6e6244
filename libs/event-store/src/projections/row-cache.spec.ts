import { describe, expect, it } from '@jest/globals';
import { RowCache } from './row-cache.js';

interface Row {
  id: string;
  n: number;
}

describe('RowCache', () => {
  it('tells the rows it knows, absent ones included, from the keys it must read', () => {
    const cache = new RowCache<Row>(10);
    cache.remember('a', { id: 'a', n: 1 });
    cache.remember('gone', null);

    expect(cache.lookup(['a', 'gone', 'b'])).toEqual({
      known: [{ id: 'a', n: 1 }],
      missing: ['b'],
    });
  });

  it('drops the least recently used row beyond its bound, a lookup counting as a use', () => {
    const cache = new RowCache<Row>(2);
    cache.remember('a', { id: 'a', n: 1 });
    cache.remember('b', { id: 'b', n: 2 });
    cache.lookup(['a']);
    cache.remember('c', { id: 'c', n: 3 });

    expect(cache.size).toBe(2);
    expect(cache.lookup(['a', 'b', 'c']).missing).toEqual(['b']);
  });

  it('keeps the newest row of a key, and nothing after a clear', () => {
    const cache = new RowCache<Row>(5);
    cache.remember('a', { id: 'a', n: 1 });
    cache.remember('a', { id: 'a', n: 2 });
    expect(cache.lookup(['a']).known).toEqual([{ id: 'a', n: 2 }]);

    cache.clear();
    expect(cache.lookup(['a']).missing).toEqual(['a']);
  });

  it('keeps nothing with a bound of 0', () => {
    const cache = new RowCache<Row>(0);
    cache.remember('a', { id: 'a', n: 1 });
    expect(cache.lookup(['a']).missing).toEqual(['a']);
  });
});
