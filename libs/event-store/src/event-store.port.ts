import type { LogPosition } from './log-position.js';
import { WrongExpectedPositionError } from './event-store.errors.js';
import { uuidv7 } from './uuid-v7.js';
import { AuditUnavailableError, type EventLogAudit } from './audit/event-log-audit.js';

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

/** One stream's part of `appendAll`. */
export interface StreamAppend {
  readonly streamId: string;
  readonly events: readonly EventToAppend[];
  readonly expectedPosition?: ExpectedPosition;
  /**
   * With a numeric `expectedPosition`: the id of the event at that position. A stream deleted and
   * written again to the same length is then told apart from the one the writer read.
   */
  readonly expectedEventId?: string;
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
  /**
   * Event types whose appends wake the subscription at once. An append of this process holding
   * none of them is read with the next one that does, at the next poll, or on `readNow()`.
   * Omitted: every append wakes it.
   */
  readonly wakesFor?: ReadonlySet<string>;
  /**
   * The events the subscriber looks for, judged on what the log stores of them (an adapter's
   * wrapper, such as the runtime's decryption, does no work on the others): the rest are passed
   * over. Omitted: every event. An adapter may deliver more; the subscriber still checks.
   */
  readonly keeps?: (event: RecordedEvent) => boolean;
  /**
   * Called once, when the subscriber has been given every event there was when it started and
   * the subscription is about to wait for new ones (a replay's end).
   */
  readonly onCaughtUp?: () => void;
}

/**
 * Catches up from its starting point, then follows live, until closed.
 * Iterating pulls events, so a slow consumer never makes the store buffer without bound.
 */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
  /** Looks for new events at once, if it was waiting for them (adapters that wait may have it). */
  readNow?(): void;
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

  /**
   * Appends to several streams: all land or none does, and a refusal is the error `append` would
   * throw for its stream (with `WrongExpectedPositionError` when `expectedEventId` does not match).
   * Adapters that cannot do it in one transaction append in the order given and stop at the first
   * refusal: what was appended before it stays (appending it again is an idempotent retry).
   */
  async appendAll(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    const results: AppendResult[] = [];
    for (const part of appends) {
      if (part.expectedEventId !== undefined) await this.checkEventAt(part);
      results.push(
        await this.append(part.streamId, part.events, { expectedPosition: part.expectedPosition }),
      );
    }
    return results;
  }

  private async checkEventAt(part: StreamAppend): Promise<void> {
    const { streamId, expectedPosition } = part;
    if (typeof expectedPosition !== 'number') {
      throw new RangeError('expectedEventId needs a numeric expectedPosition');
    }
    const [found] = await this.readStream(streamId, {
      fromPosition: expectedPosition,
      maxCount: 1,
    });
    if (found?.streamPosition === expectedPosition && found.eventId === part.expectedEventId)
      return;
    const [head] = await this.readStream(streamId, { direction: 'backwards', maxCount: 1 });
    throw new WrongExpectedPositionError(streamId, expectedPosition, head?.streamPosition ?? -1);
  }

  /** The log's tamper evidence; adapters that keep none throw `AuditUnavailableError`. */
  audit(): EventLogAudit {
    throw new AuditUnavailableError('This event store keeps no hash chain of its log');
  }

  /** Removes the stream and its events; reading it afterwards finds nothing. */
  abstract deleteStream(streamId: string): Promise<void>;

  abstract close(): Promise<void>;
}
