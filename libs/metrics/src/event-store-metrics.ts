import { databaseWork } from '#libs/database';
import type { EventStore, LogPosition } from '#libs/event-store';
import { compareLogPositions } from '#libs/event-store';
import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from './registry.js';

const appendLatency = new Histogram({
  name: 'berth_event_store_append_duration_seconds',
  help: 'Time an append to the event store took, to its commit',
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metricsRegistry],
});

const eventsAppended = new Counter({
  name: 'berth_events_appended_total',
  help: 'Events committed to the event store by this process',
  registers: [metricsRegistry],
});

/** A projection runner, as far as its lag is concerned. */
interface FollowingProjection {
  readonly position: LogPosition;
  readonly projection: { readonly name: string };
}

/**
 * How many unapplied events are counted exactly. Counting reads them: a read model far behind
 * is reported as this many, so that a scrape adds no heavy reads to a struggling database.
 */
const LAG_COUNT_LIMIT = 1_000;

/** Measures every append this process makes. */
export function measureAppends(store: EventStore): void {
  store.appendObserver = (events, seconds) => {
    eventsAppended.inc(events);
    appendLatency.observe(seconds);
  };
}

interface Lag {
  readonly events: number;
  readonly ms: number;
}

/**
 * Reports, at each scrape, how far each projection's read model is behind the log: in events
 * (up to 1,000) and in milliseconds since the oldest event it has not applied was recorded.
 * Both gauges are collected at once by a scrape, and share one measurement.
 */
export function measureProjectionLag(
  store: EventStore,
  runners: readonly FollowingProjection[],
): void {
  const lagOf = async (runner: FollowingProjection, head: LogPosition): Promise<Lag> => {
    if (compareLogPositions(runner.position, head) >= 0) return { events: 0, ms: 0 };
    // Counted, not folded: no event's data is loaded.
    const behind = await store.readLog({
      after: runner.position,
      maxCount: LAG_COUNT_LIMIT,
      withDataOf: new Set<string>(),
    });
    const oldest = behind[0];
    return {
      events: behind.length,
      ms: oldest ? Math.max(0, Date.now() - oldest.recordedAt.getTime()) : 0,
    };
  };
  let measuring: Promise<Map<string, Lag>> | undefined;
  const measure = (): Promise<Map<string, Lag>> => {
    measuring ??= (async () => {
      const head = await store.headPosition();
      const lags = new Map<string, Lag>();
      for (const runner of runners) lags.set(runner.projection.name, await lagOf(runner, head));
      return lags;
    })().finally(() => {
      measuring = undefined;
    });
    return measuring;
  };
  const lagGauge = (name: string, help: string, pick: keyof Lag): void => {
    new Gauge({
      name,
      help,
      labelNames: ['projection'],
      registers: [metricsRegistry],
      async collect() {
        for (const [projection, lag] of await measure()) this.set({ projection }, lag[pick]);
      },
    });
  };
  lagGauge(
    'berth_projection_lag_events',
    "Events in the log that a projection's read model does not reflect yet (1,000 at most)",
    'events',
  );
  lagGauge(
    'berth_projection_lag_milliseconds',
    "How long the oldest event a projection's read model does not reflect yet has waited",
    'ms',
  );
}

/** A projection runner, as far as the delay of what it applies is concerned. */
interface ApplyingProjection {
  appliedObserver: ((projection: string, delaySeconds: number) => void) | undefined;
}

/**
 * How long an event waits between its commit and the read models that fold it: a histogram per
 * projection, one observation per batch that changed rows (its oldest such event). A reader that
 * waits for its own write (`waitUntilPast`) waits about this long.
 */
export function measureProjectionDelays(runners: readonly ApplyingProjection[]): void {
  const delays = new Histogram({
    name: 'berth_projection_apply_delay_seconds',
    help: 'Time from an event being recorded to the read model that folds it reflecting it',
    labelNames: ['projection'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metricsRegistry],
  });
  for (const runner of runners) {
    runner.appliedObserver = (projection, delaySeconds) => {
      delays.observe({ projection }, delaySeconds);
    };
  }
}

/** A projection runner, as far as its failures are concerned. */
interface FailingProjection {
  readonly projection: { readonly name: string };
  /** Set while the read model is stuck on an event it cannot apply. */
  readonly failure: object | undefined;
  /** How many times it got stuck. */
  readonly failures: number;
}

/**
 * Read models stuck on an event they cannot apply: a gauge (1 while stuck, per projection) and a
 * counter of the times each got stuck. Alert on `berth_projection_stuck > 0`; `GET /ok` names the
 * event.
 */
export function measureProjectionFailures(runners: readonly FailingProjection[]): void {
  new Gauge({
    name: 'berth_projection_stuck',
    help: 'Whether a read model is stuck on an event it cannot apply (1) or follows the log (0)',
    labelNames: ['projection'],
    registers: [metricsRegistry],
    collect() {
      for (const runner of runners) {
        this.set({ projection: runner.projection.name }, runner.failure ? 1 : 0);
      }
    },
  });
  new Counter({
    name: 'berth_projection_failures_total',
    help: 'Times a read model got stuck on an event it could not apply (once per event, not per retry)',
    labelNames: ['projection'],
    registers: [metricsRegistry],
    collect() {
      this.reset();
      for (const runner of runners) {
        this.inc({ projection: runner.projection.name }, runner.failures);
      }
    },
  });
}

/** A counter kept elsewhere (in `databaseWork`), read at each scrape. */
function countedElsewhere(name: string, help: string, read: () => number): void {
  new Counter({
    name,
    help,
    registers: [metricsRegistry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

countedElsewhere(
  'berth_database_statements_total',
  'SQL statements this process sent to PostgreSQL',
  () => databaseWork.statements,
);
countedElsewhere(
  'berth_database_transactions_total',
  'Transactions this process committed in PostgreSQL (a statement outside BEGIN…COMMIT is one)',
  () => databaseWork.transactions,
);
