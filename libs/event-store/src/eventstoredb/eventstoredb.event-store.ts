import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  type AllStreamResolvedEvent,
  type AppendResult as EsdbAppendResult,
  type ReadRevision,
} from '@eventstore/db-client';
import {
  EventStore,
  type AppendOptions,
  type AppendResult,
  type EventToAppend,
  type LogSubscriptionOptions,
  type ReadLogOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamSubscriptionOptions,
  type Subscription,
} from '../event-store.port.js';
import { LOG_START, compareLogPositions, type LogPosition } from '../log-position.js';
import {
  toEventData,
  toExpectedRevision,
  toLogPosition,
  toReadPosition,
  toSubscriptionRevision,
  toUserEvent,
  toWrongExpectedPositionError,
} from './eventstoredb.mapping.js';
import { EventStoreDbSubscription } from './eventstoredb.subscription.js';
import { AuditUnavailableError, type EventLogAudit } from '../audit/event-log-audit.js';

const MIN_LOG_PAGE_SIZE = 64;
const MAX_LOG_PAGE_SIZE = 512;

export class EventStoreDbEventStore extends EventStore {
  constructor(private readonly client: EventStoreDBClient) {
    super();
  }

  /** For example `esdb://localhost:2113?tls=false`. */
  static fromConnectionString(url: string): EventStoreDbEventStore {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(url));
  }

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    { expectedPosition = 'any' }: AppendOptions = {},
  ): Promise<AppendResult> {
    let result: EsdbAppendResult;
    const started = performance.now();
    try {
      result = await this.client.appendToStream(streamId, events.map(toEventData), {
        expectedRevision: toExpectedRevision(expectedPosition),
      });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        throw toWrongExpectedPositionError(streamId, expectedPosition, error);
      }
      throw error;
    }
    this.appendObserver?.(events.length, (performance.now() - started) / 1000);
    return {
      streamPosition: Number(result.nextExpectedRevision),
      logPosition: result.position
        ? toLogPosition(result.position)
        : await this.lastLogPosition(streamId),
    };
  }

  async readStream(
    streamId: string,
    { direction = 'forwards', fromPosition, maxCount }: ReadStreamOptions = {},
  ): Promise<RecordedEvent[]> {
    if (maxCount !== undefined && maxCount <= 0) return [];
    const reading = this.client.readStream(streamId, {
      direction: direction === 'forwards' ? FORWARDS : BACKWARDS,
      fromRevision: readStart(direction, fromPosition),
      maxCount,
    });
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of reading) {
        const event = toUserEvent(resolved);
        if (event !== undefined) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return [];
      throw error;
    }
    return events;
  }

  async readLog(options: ReadLogOptions = {}): Promise<RecordedEvent[]> {
    const { after, maxCount = Number.POSITIVE_INFINITY } = options;
    const events: RecordedEvent[] = [];
    let cursor = after;
    while (events.length < maxCount) {
      const pageSize = logPageSize(maxCount - events.length);
      const page = await this.readLogPage(cursor, pageSize);
      for (const resolved of page) {
        if (cursor !== undefined && isAtOrBefore(resolved, cursor)) continue;
        const event = toUserEvent(resolved);
        if (event !== undefined) events.push(event);
      }
      const last = page.at(-1)?.event;
      if (page.length < pageSize || last === undefined) break;
      cursor = toLogPosition(last.position);
    }
    return events.slice(0, maxCount);
  }

  /** The newest user event's position: system events are never projected, so never awaited. */
  async headPosition(): Promise<LogPosition> {
    const reading = this.client.readAll({
      direction: BACKWARDS,
      fromPosition: END,
      maxCount: 4096,
    });
    for await (const resolved of reading) {
      const event = toUserEvent(resolved);
      if (event !== undefined) return event.logPosition;
    }
    return LOG_START;
  }

  subscribeToStream(
    streamId: string,
    { afterPosition }: StreamSubscriptionOptions = {},
  ): Subscription {
    const source = this.client.subscribeToStream(streamId, {
      fromRevision: toSubscriptionRevision(afterPosition),
    });
    return new EventStoreDbSubscription(source, toUserEvent);
  }

  subscribeToLog({ after, onCaughtUp, keeps }: LogSubscriptionOptions = {}): Subscription {
    const source = this.client.subscribeToAll({
      fromPosition: toReadPosition(after),
      filter: excludeSystemEvents(),
    });
    // The server says when it has sent what there was (it may reach the reader a moment before
    // the last of those events does).
    if (onCaughtUp) source.once('caughtUp', onCaughtUp);
    return new EventStoreDbSubscription(source, (resolved) => {
      const event = toUserEvent(resolved);
      return event && (!keeps || keeps(event)) ? event : undefined;
    });
  }

  /**
   * No chain here. Reading $all would give the events in order, but the chain's links need a
   * place of their own: written as events they would enter the $all they seal, and every seal
   * would be an append to the server the application appends to. And a scavenge removes deleted
   * streams' events from $all leaving nothing a verification could tell from a removal.
   */
  override audit(): EventLogAudit {
    throw new AuditUnavailableError(
      'The EventStoreDB event store keeps no hash chain of its log (docs/audit.md says why): ' +
        'tamper evidence needs the PostgreSQL event store',
    );
  }

  async deleteStream(streamId: string): Promise<void> {
    try {
      await this.client.deleteStream(streamId);
    } catch (error) {
      if (!isMissingStreamOnDelete(error)) throw error;
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  private async lastLogPosition(streamId: string): Promise<LogPosition> {
    const [last] = await this.readStream(streamId, { direction: 'backwards', maxCount: 1 });
    return last?.logPosition ?? LOG_START;
  }

  /** `readAll` starts at its position inclusively. */
  private async readLogPage(
    from: LogPosition | undefined,
    pageSize: number,
  ): Promise<AllStreamResolvedEvent[]> {
    const page: AllStreamResolvedEvent[] = [];
    const reading = this.client.readAll({
      direction: FORWARDS,
      fromPosition: toReadPosition(from),
      maxCount: pageSize,
    });
    for await (const resolved of reading) page.push(resolved);
    return page;
  }
}

function readStart(
  direction: 'forwards' | 'backwards',
  fromPosition: number | undefined,
): ReadRevision {
  if (fromPosition !== undefined) return BigInt(fromPosition);
  return direction === 'forwards' ? START : END;
}

function logPageSize(wanted: number): number {
  return Math.min(MAX_LOG_PAGE_SIZE, Math.max(MIN_LOG_PAGE_SIZE, wanted + 1));
}

function isAtOrBefore(resolved: AllStreamResolvedEvent, position: LogPosition): boolean {
  return (
    resolved.event !== undefined && compareLogPositions(resolved.event.position, position) <= 0
  );
}

/** Soft-deleting a stream that never existed fails with a wrong expected version, even for ANY. */
function isMissingStreamOnDelete(error: unknown): boolean {
  return error instanceof WrongExpectedVersionError || error instanceof StreamNotFoundError;
}
