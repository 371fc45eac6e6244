import { describe, expect, it } from '@jest/globals';
import { describeVerification, formatHead, parseHead } from './chain-report.js';

const hash = 'ab'.repeat(32);

describe('chain heads and the one-line answer', () => {
  it('writes and reads a head as position:hash', () => {
    expect(formatHead({ position: 42, hash })).toBe(`42:${hash}`);
    expect(parseHead(`42:${hash}`)).toEqual({ position: 42, hash });
    expect(parseHead(`42:${hash.toUpperCase()}`)).toEqual({ position: 42, hash });
    for (const bad of ['42', `x:${hash}`, `42:${hash.slice(2)}`, `-1:${hash}`, '']) {
      expect(parseHead(bad)).toBeUndefined();
    }
  });

  it('says what was verified, or where and how the log broke', () => {
    expect(
      describeVerification({
        verified: true,
        events: 3,
        deleted: 0,
        head: { position: 3, hash },
        pending: 0,
      }),
    ).toBe(`verified 3 events up to position 3; head 3:${hash}`);
    expect(
      describeVerification({
        verified: false,
        events: 4,
        break: { kind: 'missing', position: 5, detail: 'event e, sealed here, is gone' },
      }),
    ).toBe('broken at position 5: missing: event e, sealed here, is gone');
  });
});
