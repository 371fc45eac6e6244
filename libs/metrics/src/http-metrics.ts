import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, metricsRegistry } from './registry.js';

const labelNames = ['method', 'route', 'status'] as const;

const requests = new Counter({
  name: 'berth_http_requests_total',
  help: 'HTTP requests answered, by method, route pattern and status',
  labelNames,
  registers: [metricsRegistry],
});

const latency = new Histogram({
  name: 'berth_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer ending, by method, route pattern and status',
  labelNames,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

/** Open Server-Sent Events streams (run streams, joins, log follows). */
export const sseConnectionsOpen = new Gauge({
  name: 'berth_sse_connections_open',
  help: 'Server-Sent Events streams open now',
  registers: [metricsRegistry],
});

/**
 * Counts and times every answered request. The route label is the route's pattern
 * (`/threads/:threadId`), never the URL, so ids do not multiply the series; a request that
 * matched no route is counted under `unmatched`.
 */
export function registerHttpMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
