import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { uuidv7 } from './uuid-v7.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Ids made while the clock reads each given time in turn. */
function idsAt(...times: number[]): string[] {
  const clock = jest.spyOn(Date, 'now');
  return times.map((time) => {
    clock.mockReturnValue(time);
    return uuidv7();
  });
}

describe('uuidv7', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('is a version 7, RFC 9562 variant uuid carrying the time in its first 48 bits', () => {
    const at = Date.UTC(2040, 10, 22);
    const [id = ''] = idsAt(at);
    expect(id).toMatch(UUID_V7);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('increases strictly, within one millisecond and when the clock steps back', () => {
    const at = Date.UTC(2050, 0, 1);
    const ids = idsAt(...Array.from({ length: 5000 }, () => at), at - 1000, at + 1);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(UUID_V7);
  });
});
