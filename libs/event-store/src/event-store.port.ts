import type { LogPosition } from './log-position.js';
import { uuidv7 } from './uuid-v7.js';

export type { JsonObject, JsonValue } from '#libs/domain';
import type { JsonObject } from '#libs/domain';

/**
 * The position of the last event a writer expects the stream to have.
 * Stream positions count from 0, so a stream of n events is at position n - 1.
 */
export type ExpectedPosition = 'any' | 'no_stream' | 'stream_exists' | number;

export interface EventToAppend {
  /** A uuid. Appending an event id that is already stored is a retry, never a second copy. */
  readonly eventId: string;
  readonly type: string;
  readonly data: JsonObject;
  readonly metadata?: JsonObject;
}

export interface RecordedEvent {
  readonly eventId: string;
  readonly type: string;
  readonly streamId: string;
  readonly streamPosition: number;
  readonly logPosition: LogPosition;
  readonly data: JsonObject;
  readonly metadata: JsonObject;
  readonly recordedAt: Date;
}

export interface AppendResult {
  /** The stream's position after the append: pass it as the next expected position. */
  readonly streamPosition: number;
  /** The global log position of the last appended event. */
  readonly logPosition: LogPosition;
}

export interface AppendOptions {
  readonly expectedPosition?: ExpectedPosition;
}

export type ReadDirection = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  readonly direction?: ReadDirection;
  /** Inclusive. Forwards defaults to the start, backwards to the end. */
  readonly fromPosition?: number;
  readonly maxCount?: number;
}

/**
 * The event types whose `data` a log reader folds. Events of other types may then come with
 * empty data (their type, stream and positions as always): an adapter need not load what the
 * reader ignores. Omitted: every event with its data.
 */
export type DataOf = ReadonlySet<string> | undefined;

export interface ReadLogOptions {
  /** Exclusive: events after this position. Omitted means from the very beginning. */
  readonly after?: LogPosition;
  readonly maxCount?: number;
  readonly withDataOf?: DataOf;
}

export interface StreamSubscriptionOptions {
  /** Exclusive: deliver events after this stream position. Omitted means from the start. */
  readonly afterPosition?: number;
  /**
   * The event types the subscriber looks for: an adapter may leave out events of other types,
   * and need not read appends it knows hold none of them.
   */
  readonly onlyTypes?: ReadonlySet<string>;
}

export interface LogSubscriptionOptions {
  /** Exclusive: deliver events after this log position. Omitted means from the start. */
  readonly after?: LogPosition;
  readonly withDataOf?: DataOf;
}

/**
 * Catches up from its starting point, then follows live, until closed.
 * Iterating pulls events, so a slow consumer never makes the store buffer without bound.
 */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
}

/** The event store port. Every adapter passes the one contract suite in `testing/`. */
export abstract class EventStore {
  /** Told of every committed append: how many events it stored and how long it took. */
  appendObserver: ((events: number, seconds: number) => void) | undefined;

  abstract append(
    streamId: string,
    events: readonly EventToAppend[],
    options?: AppendOptions,
  ): Promise<AppendResult>;

  abstract readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;

  abstract readLog(options?: ReadLogOptions): Promise<RecordedEvent[]>;

  /**
   * The position of the newest committed event. Waiting for a read model to pass it makes every
   * write acknowledged before the call visible (read your writes, on any replica).
   */
  abstract headPosition(): Promise<LogPosition>;

  abstract subscribeToStream(streamId: string, options?: StreamSubscriptionOptions): Subscription;

  abstract subscribeToLog(options?: LogSubscriptionOptions): Subscription;

  /**
   * Appends every event of `source`, in order, to `target`, a stream that must not exist yet
   * (`WrongExpectedPositionError` otherwise), as new events with ids of their own. Undefined,
   * appending nothing, when `source` has no event. Adapters that can copy without reading the
   * events out do.
   */
  async copyStream(source: string, target: string): Promise<AppendResult | undefined> {
    const events = await this.readStream(source);
    if (events.length === 0) return undefined;
    return this.append(
      target,
      events.map((event) => ({ eventId: uuidv7(), type: event.type, data: event.data })),
      { expectedPosition: 'no_stream' },
    );
  }

  /**
   * `copyStream(source, target)`, then `append(streamId, events, options)`: the event that says
   * what the copy is for. Adapters that can do both in one transaction do, so that neither lands
   * without the other; the others copy first.
   */
  async copyStreamAndAppend(
    source: string,
    target: string,
    streamId: string,
    events: readonly EventToAppend[],
    options?: AppendOptions,
  ): Promise<AppendResult> {
    await this.copyStream(source, target);
    return this.append(streamId, events, options);
  }

  /** Removes the stream and its events; reading it afterwards finds nothing. */
  abstract deleteStream(streamId: string): Promise<void>;

  abstract close(): Promise<void>;
}
