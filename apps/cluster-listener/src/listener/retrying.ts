import { setTimeout as sleep } from 'node:timers/promises';
import { isMomentary } from './failures.js';

/** The first and the longest wait before a failed step is tried again. */
export interface RetryDelays {
  readonly first: number;
  readonly longest: number;
}

/**
 * Runs `work` until it succeeds, or fails for good (`isMomentary` says no: thrown), or `signal`
 * aborts: waiting `first` ms after the first failure, twice as long after each next one, up to
 * `longest`; `onRetry` hears each failure tried again.
 */
export async function retrying<T>(
  work: () => Promise<T>,
  options: {
    readonly delays: RetryDelays;
    readonly signal: AbortSignal;
    readonly onRetry: (error: unknown, waitMs: number) => void;
  },
): Promise<T> {
  const { delays, signal, onRetry } = options;
  for (let wait = delays.first; ; wait = Math.min(wait * 2, delays.longest)) {
    try {
      return await work();
    } catch (error) {
      if (signal.aborted || !isMomentary(error)) throw error;
      onRetry(error, wait);
    }
    await sleep(wait, undefined, { signal });
  }
}
