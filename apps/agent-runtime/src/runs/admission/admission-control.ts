import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { Gauge } from 'prom-client';
import { metricsRegistry } from '#libs/metrics';
import { nextAdmissionLimit, type AdmissionSettings } from './admission-decider.js';

/** How often the load is sampled and the limit decided again. */
const SAMPLE_MS = 250;
/** The event-loop delay histogram's resolution: a healthy loop reads about this much. */
const RESOLUTION_MS = 10;

const admissionLimit = new Gauge({
  name: 'berth_run_admission_limit',
  help: 'Runs this process takes at once now: follows its event-loop delay and heap, up to BERTH_WORKER_CONCURRENCY',
  registers: [metricsRegistry],
});

const runsInProgress = new Gauge({
  name: 'berth_runs_in_progress',
  help: 'Runs this process executes now',
  registers: [metricsRegistry],
});

/**
 * Samples this process's event-loop delay and heap, and keeps the run workers' limit where the
 * decider puts it (admission-decider.ts); says when it rose, so that waiting runs are claimed.
 */
export class AdmissionControl {
  private current: number;
  private histogram: IntervalHistogram | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: AdmissionSettings,
    /** Runs in progress, and whether runs are known to wait for a slot. */
    private readonly load: () => { readonly active: number; readonly held: boolean },
    private readonly onRaise: () => void,
  ) {
    this.current = settings.initial;
    admissionLimit.set(this.current);
  }

  /** Runs it may take at once now. */
  get limit(): number {
    return this.current;
  }

  /** The runs in progress changed (one began or ended). */
  noteActive(active: number): void {
    runsInProgress.set(active);
  }

  start(): void {
    if (this.settings.cap === this.settings.floor) return;
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
    this.timer = setInterval(() => {
      this.sample();
    }, SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram?.disable();
  }

  private sample(): void {
    const histogram = this.histogram;
    if (!histogram) return;
    const eventLoopDelayMs = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    histogram.reset();
    const heap = getHeapStatistics();
    const next = nextAdmissionLimit(
      this.current,
      {
        eventLoopDelayMs,
        heapShare: heap.used_heap_size / heap.heap_size_limit,
        ...this.load(),
      },
      this.settings,
    );
    const raised = next > this.current;
    this.current = next;
    admissionLimit.set(next);
    if (raised) this.onRaise();
  }
}
