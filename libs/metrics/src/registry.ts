import { collectDefaultMetrics, Registry } from 'prom-client';

/** The process's metrics, as GET /metrics shows them: Berth's own and Node's (memory, CPU, event loop). */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Bounds of latency histograms, in seconds: from a fast read to a long run. */
export const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800,
];
