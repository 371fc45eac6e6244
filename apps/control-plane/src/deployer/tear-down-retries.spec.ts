import { describe, expect, it } from '@jest/globals';
import { tearDownFailureLine, tearDownRetryDelayMs } from './tear-down-retries.js';

describe('retrying a deployment whose tear-down failed', () => {
  it('waits twice as long after each failure, at most five minutes', () => {
    expect([1, 2, 3, 4].map(tearDownRetryDelayMs)).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(tearDownRetryDelayMs(30)).toBe(300_000);
  });

  it('says which attempt failed, why, and when the next one comes', () => {
    expect(tearDownFailureLine(2, 'home still holds what could not be removed (d1)', 4_000)).toBe(
      'Deleting the deployment failed (attempt 2): home still holds what could not be removed ' +
        '(d1); trying again in 4 s',
    );
  });
});
