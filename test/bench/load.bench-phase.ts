import { percentile } from './bench-support.js';

export interface WaitLoad {
  readonly runs: number;
  readonly errors: number;
  readonly firstError: string | undefined;
  readonly seconds: number;
  /** Each finished run's time, ms. */
  readonly latencies: readonly number[];
}

export interface WaitLoadOptions<Target> {
  readonly clients: number;
  readonly durationMs: number;
  readonly newThread: (target: Target) => Promise<string>;
  /** One run on the thread, to its end (runs/wait); throws on any failure. */
  readonly runOnce: (target: Target, threadId: string) => Promise<void>;
}

/**
 * `clients` clients, each on a thread of its own, run one run after the other until the time is
 * up: every run is timed and every failure counted (a failed client goes on with its next run).
 */
export async function waitLoad<Target>(
  target: Target,
  options: WaitLoadOptions<Target>,
): Promise<WaitLoad> {
  const threads = await Promise.all(
    Array.from({ length: options.clients }, () => options.newThread(target)),
  );
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + options.durationMs;
  await Promise.all(
    threads.map(async (threadId) => {
      while (performance.now() < deadline) {
        const began = performance.now();
        try {
          await options.runOnce(target, threadId);
          latencies.push(performance.now() - began);
        } catch (error) {
          errors += 1;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  return {
    runs: latencies.length,
    errors,
    firstError,
    seconds: (performance.now() - started) / 1000,
    latencies,
  };
}

/** The load's p99 over one client's p50, and whether it meets the goal (under `bound`, no error). */
export function loadGoal(
  load: WaitLoad,
  singleClientP50: number,
  bound: number,
): { readonly times: number; readonly met: boolean } {
  const times = percentile(load.latencies, 99) / singleClientP50;
  return { times, met: times < bound && load.errors === 0 && load.runs > 0 };
}
