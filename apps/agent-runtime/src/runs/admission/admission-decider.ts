/**
 * How many runs one process takes at once, decided from what it can bear rather than a fixed
 * count: a run waiting on a model costs almost nothing, a run computing costs the event loop. The
 * limit grows while every slot is taken and the process stays responsive, and shrinks at once when
 * the event loop lags or the heap fills. Runs already taken are never given back: a lower limit
 * only stops new claims until enough of them end.
 */

export interface AdmissionSettings {
  /** The most runs at once, whatever the load (`BERTH_WORKER_CONCURRENCY`). */
  readonly cap: number;
  /** The fewest runs at once the limit ever falls to. */
  readonly floor: number;
  /** Where the limit starts. */
  readonly initial: number;
  /** Event-loop delay (p99 over a sample) the process keeps under while it takes more. */
  readonly targetDelayMs: number;
  /** Share of the V8 heap limit past which it takes no more, and gives back slots. */
  readonly maxHeapShare: number;
}

/** What the process looked like over the last sample. */
export interface LoadSample {
  /** p99 of the event loop's delay over the sample, milliseconds. */
  readonly eventLoopDelayMs: number;
  /** Heap used over the heap limit, 0 to 1. */
  readonly heapShare: number;
  /** Runs in progress when the sample ended. */
  readonly active: number;
  /** Whether runs are known to wait for a slot (the limit holds them back). */
  readonly held: boolean;
}

/** Shrinking keeps this share of the limit. */
const BACK_OFF = 0.7;
/** Growing adds this share of the limit (at least one run). */
const GROW = 0.5;

export function nextAdmissionLimit(
  limit: number,
  sample: LoadSample,
  settings: AdmissionSettings,
): number {
  const strained =
    sample.heapShare > settings.maxHeapShare ||
    sample.eventLoopDelayMs > settings.targetDelayMs * 2;
  if (strained) return Math.max(settings.floor, Math.min(limit, Math.floor(limit * BACK_OFF)));
  const saturated = sample.held && sample.active >= limit;
  const comfortable = sample.eventLoopDelayMs <= settings.targetDelayMs;
  if (saturated && comfortable) {
    return Math.min(settings.cap, limit + Math.max(1, Math.ceil(limit * GROW)));
  }
  return Math.min(settings.cap, Math.max(settings.floor, limit));
}

/** The settings that follow from the cap: a start and a floor that fit under it. */
export function admissionSettingsOf(cap: number): AdmissionSettings {
  return {
    cap,
    floor: Math.min(cap, 4),
    initial: Math.min(cap, 16),
    targetDelayMs: 40,
    maxHeapShare: 0.75,
  };
}
