import { describe, expect, it } from '@jest/globals';
import { admissionSettingsOf, nextAdmissionLimit, type LoadSample } from './admission-decider.js';

const settings = admissionSettingsOf(1000);
const calm: LoadSample = { eventLoopDelayMs: 12, heapShare: 0.2, active: 16, held: true };

describe('nextAdmissionLimit', () => {
  it('grows while every slot is taken, runs wait and the event loop keeps up, up to the cap', () => {
    let limit = settings.initial;
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      limit = nextAdmissionLimit(limit, { ...calm, active: limit }, settings);
      seen.push(limit);
    }
    expect(seen.slice(0, 4)).toEqual([24, 36, 54, 81]);
    expect(limit).toBe(1000);
  });

  it('stays put when slots are free or nothing waits: an idle process proves nothing', () => {
    expect(nextAdmissionLimit(64, { ...calm, active: 10 }, settings)).toBe(64);
    expect(nextAdmissionLimit(64, { ...calm, active: 64, held: false }, settings)).toBe(64);
  });

  it('stays put between the target delay and twice it', () => {
    expect(nextAdmissionLimit(64, { ...calm, active: 64, eventLoopDelayMs: 60 }, settings)).toBe(
      64,
    );
  });

  it('backs off at once when the event loop lags or the heap fills, never under the floor', () => {
    expect(nextAdmissionLimit(100, { ...calm, eventLoopDelayMs: 200 }, settings)).toBe(70);
    expect(nextAdmissionLimit(100, { ...calm, heapShare: 0.9 }, settings)).toBe(70);
    expect(nextAdmissionLimit(5, { ...calm, heapShare: 0.9 }, settings)).toBe(4);
  });

  it('keeps a small cap as it is set', () => {
    const two = admissionSettingsOf(2);
    expect(two).toMatchObject({ cap: 2, floor: 2, initial: 2 });
    expect(nextAdmissionLimit(2, { ...calm, active: 2 }, two)).toBe(2);
    expect(nextAdmissionLimit(2, { ...calm, eventLoopDelayMs: 500 }, two)).toBe(2);
  });
});
