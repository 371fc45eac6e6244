import type { Target } from './bench-http.js';
import type { Row } from './bench-support.js';

/** One projection's histogram of apply delays: cumulative counts by upper bound (seconds). */
type Histogram = Map<number, number>;

const METRIC = 'berth_projection_apply_delay_seconds_bucket';
/** What the issue asks of the read models under load. */
const GOAL_MS = 500;

/** The runtime's `berth_projection_apply_delay_seconds` histograms, by projection. */
export async function readProjectionDelays(target: Target): Promise<Map<string, Histogram>> {
  const response = await fetch(`${target.url}/metrics`, { headers: target.headers });
  const text = await response.text();
  const histograms = new Map<string, Histogram>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(METRIC)) continue;
    // Labels in whatever order the registry writes them (prom-client puts `le` first).
    const projection = /projection="([^"]+)"/.exec(line)?.[1];
    const le = /le="([^"]+)"/.exec(line)?.[1];
    const count = /\} (\d+)$/.exec(line)?.[1];
    if (projection === undefined || le === undefined || count === undefined) continue;
    const histogram = histograms.get(projection) ?? new Map<number, number>();
    histogram.set(le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), Number(count));
    histograms.set(projection, histogram);
  }
  return histograms;
}

/** The bucket bound under which `share` of the observations between two readings fell. */
function quantileBound(before: Histogram | undefined, after: Histogram, share: number): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const delta = (bound: number): number => (after.get(bound) ?? 0) - (before?.get(bound) ?? 0);
  const total = delta(Number.POSITIVE_INFINITY);
  if (total === 0) return Number.NaN;
  return bounds.find((bound) => delta(bound) >= total * share) ?? Number.POSITIVE_INFINITY;
}

/**
 * One row per read model: how long an event waited to reach it between two readings (p50 and
 * p99, as the histogram's bucket bounds give them), against the goal.
 */
export function projectionDelayRows(
  label: string,
  before: Map<string, Histogram>,
  after: Map<string, Histogram>,
): Row[] {
  const ms = (seconds: number): string =>
    Number.isFinite(seconds) ? `<= ${Math.round(seconds * 1000)} ms` : '> 10 s';
  return [...after]
    .map(([projection, histogram]) => {
      const p50 = quantileBound(before.get(projection), histogram, 0.5);
      const p99 = quantileBound(before.get(projection), histogram, 0.99);
      return { projection, p50, p99 };
    })
    .filter(({ p99 }) => !Number.isNaN(p99))
    .map(({ projection, p50, p99 }) => ({
      metric: `${label}: ${projection} read model, delay p50 / p99 (goal p99 < ${GOAL_MS} ms)`,
      berth: `${ms(p50)} / ${ms(p99)}`,
      peer: '-',
      ratio: '',
    }));
}
