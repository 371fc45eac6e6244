import { describe, expect, it } from '@jest/globals';
import {
  compareLogPositions,
  formatLogPosition,
  LOG_START,
  parseLogPosition,
  type LogPosition,
} from './log-position.js';

function at(commit: bigint, prepare: bigint): LogPosition {
  return { commit, prepare };
}

describe('compareLogPositions', () => {
  it('orders by commit before prepare', () => {
    expect(compareLogPositions(at(1n, 900n), at(2n, 0n))).toBe(-1);
    expect(compareLogPositions(at(2n, 0n), at(1n, 900n))).toBe(1);
  });

  it('orders by prepare when the commits are equal', () => {
    expect(compareLogPositions(at(5n, 3n), at(5n, 4n))).toBe(-1);
    expect(compareLogPositions(at(5n, 4n), at(5n, 3n))).toBe(1);
  });

  it('finds equal positions equal, whatever the object', () => {
    expect(compareLogPositions(at(5n, 4n), at(5n, 4n))).toBe(0);
    expect(compareLogPositions(LOG_START, at(-1n, -1n))).toBe(0);
  });

  it('puts LOG_START before every real position', () => {
    expect(compareLogPositions(LOG_START, at(0n, 0n))).toBe(-1);
    expect(compareLogPositions(at(0n, 0n), LOG_START)).toBe(1);
  });

  it('compares beyond the range of a double', () => {
    const big = 2n ** 63n - 1n;
    expect(compareLogPositions(at(big - 1n, 0n), at(big, 0n))).toBe(-1);
    expect(compareLogPositions(at(big, big - 1n), at(big, big))).toBe(-1);
  });

  it('sorts a shuffled list into log order', () => {
    const shuffled = [at(2n, 1n), LOG_START, at(1n, 7n), at(2n, 0n), at(1n, 2n)];

    const sorted = [...shuffled].sort(compareLogPositions);

    expect(sorted).toEqual([LOG_START, at(1n, 2n), at(1n, 7n), at(2n, 0n), at(2n, 1n)]);
  });
});

describe('formatLogPosition and parseLogPosition', () => {
  it('writes commit/prepare', () => {
    expect(formatLogPosition(at(12n, 34n))).toBe('12/34');
    expect(formatLogPosition(LOG_START)).toBe('-1/-1');
  });

  it.each([
    ['LOG_START', LOG_START],
    ['zero', at(0n, 0n)],
    ['an ordinary position', at(812n, 3n)],
    ['a position past 2^53', at(2n ** 63n - 1n, 2n ** 60n + 1n)],
  ])('round-trips %s', (_name, position) => {
    const text = formatLogPosition(position);

    const parsed = parseLogPosition(text);

    expect(parsed).toEqual(position);
    expect(typeof parsed.commit).toBe('bigint');
    expect(typeof parsed.prepare).toBe('bigint');
    expect(compareLogPositions(parsed, position)).toBe(0);
  });

  it('reads LOG_START back from its text', () => {
    expect(parseLogPosition('-1/-1')).toEqual(LOG_START);
  });

  it.each([
    '',
    '12',
    '12/',
    '/34',
    '12/34/56',
    'a/b',
    '1.5/2',
    ' 12/34',
    '12/34 ',
    '12 / 34',
    '+1/2',
    '0x1/2',
    '1-/2',
  ])('rejects %j', (text) => {
    expect(() => parseLogPosition(text)).toThrow(`Not a log position: ${text}`);
  });
});
