import type { FastifyInstance } from 'fastify';
import type { EventStore, LogPosition } from '#libs/event-store';
import { registerRequestLogging } from '#libs/logging';
import {
  measureAppends,
  measureProjectionDelays,
  measureProjectionFailures,
  measureProjectionLag,
} from './event-store-metrics.js';
import { registerHttpMetrics } from './http-metrics.js';

/** Every request logged once, under its id, and counted and timed. */
export function observeRequests(app: FastifyInstance): void {
  registerRequestLogging(app);
  registerHttpMetrics(app);
}

/** The appends of this process measured, and how far each read model is behind the log. */
export function observeEventLog(
  store: EventStore,
  runners: readonly {
    readonly position: LogPosition;
    readonly projection: { readonly name: string };
    readonly failure: object | undefined;
    readonly failures: number;
    appliedObserver: ((projection: string, delaySeconds: number) => void) | undefined;
  }[],
): void {
  measureAppends(store);
  measureProjectionLag(store, runners);
  measureProjectionDelays(runners);
  measureProjectionFailures(runners);
}
