import { describe, expect, it } from '@jest/globals';
import { uuidv7 } from './uuid-v7.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('is a version 7, RFC 9562 variant uuid carrying the time in its first 48 bits', () => {
    const id = uuidv7(Date.UTC(2026, 10, 22));
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(Date.UTC(2026, 10, 22));
  });

  it('increases strictly, within one millisecond and when the clock steps back', () => {
    const at = Date.UTC(2030, 0, 1);
    const ids = [
      ...Array.from({ length: 5000 }, () => uuidv7(at)),
      uuidv7(at - 1000),
      uuidv7(at + 1),
    ];
    const sorted = [...ids].sort();
    expect(ids).toEqual(sorted);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(UUID_V7);
  });
});
