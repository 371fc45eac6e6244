import { describe, expect, it } from '@jest/globals';
import { retryDelayMs, retryLine } from './step-retries.js';

describe('retrying a step of a deployment that failed', () => {
  it('waits twice as long after each failure, at most five minutes', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs('tear_down', n))).toEqual([
      2_000, 4_000, 8_000, 16_000,
    ]);
    expect([1, 2, 3].map((n) => retryDelayMs('restart_active', n))).toEqual([1_000, 2_000, 4_000]);
    expect(retryDelayMs('tear_down', 30)).toBe(300_000);
    expect(retryDelayMs('restart_active', 30)).toBe(300_000);
  });

  it('says which attempt failed, why, and when the next one comes', () => {
    expect(
      retryLine('tear_down', 2, 'home still holds what could not be removed (d1)', 4_000),
    ).toBe(
      'Deleting the deployment failed (attempt 2): home still holds what could not be removed ' +
        '(d1); trying again in 4 s',
    );
    expect(retryLine('restart_active', 1, 'the runtime did not answer /ok', 1_000)).toBe(
      'Starting the live revision again failed (attempt 1): the runtime did not answer /ok; ' +
        'trying again in 1 s',
    );
  });
});
