import {
  openFields,
  sealedPartOf,
  sealFields,
  skeletonOf,
  type DataKeyStore,
  type SealedFields,
} from '#libs/encryption';
import {
  EventStore,
  type AppendOptions,
  type AppendResult,
  type EventToAppend,
  type LogPosition,
  type LogSubscriptionOptions,
  type ReadLogOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type StreamSubscriptionOptions,
  type Subscription,
  uuidv7,
} from '#libs/event-store';
import {
  CONTENT_ERASED,
  isErasure,
  isSkeletonField,
  threadStreamOf,
  type ThreadStreamOf,
} from './thread-content.js';
import { ThreadKeys } from './thread-keys.js';
import { resourceStreamOf } from './resource-content.js';
import { ResourceKeys } from './resource-keys.js';

const CREATES_THREAD = new Set(['ThreadCreated', 'ThreadCopied']);

/**
 * The runtime's event store, encrypting a thread's content (its own stream, its runs' and its
 * checkpoints') under the thread's data key, and a store item's, a cron's or an assistant's under
 * its own (see ResourceKeys), before the log stores it, and opening it again on every read. An
 * event whose key is gone is read as its skeleton, typed `ContentErased`. A deletion stays in
 * clear and destroys the key (the database does it in the append's transaction; this store does
 * it again after, for adapters without that trigger).
 */
export class EncryptingEventStore extends EventStore {
  private readonly threads: ThreadKeys;
  private readonly resources: ResourceKeys;

  constructor(
    private readonly inner: EventStore,
    private readonly keys: DataKeyStore,
  ) {
    super();
    this.threads = new ThreadKeys(inner, keys);
    this.resources = new ResourceKeys(inner, keys);
    Object.defineProperty(this, 'appendObserver', {
      get: () => inner.appendObserver,
      set: (observer: EventStore['appendObserver']) => {
        inner.appendObserver = observer;
      },
    });
    // The log's audit (a hash chain over what it stores), where the adapter keeps one.
    const audit = (inner as unknown as Record<string, unknown>)['audit'];
    if (typeof audit === 'function') {
      Object.defineProperty(this, 'audit', { value: audit.bind(inner) });
    }
  }

  async append(
    streamId: string,
    events: readonly EventToAppend[],
    options?: AppendOptions,
  ): Promise<AppendResult> {
    const sealed = await this.seal(streamId, events);
    const result = await this.inner.append(streamId, sealed, options);
    await this.afterAppend(streamId, events);
    return result;
  }

  override async appendAll(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    const sealed = await Promise.all(
      appends.map(async (part) => ({
        ...part,
        events: await this.seal(part.streamId, part.events),
      })),
    );
    const results = await this.inner.appendAll(sealed);
    for (const part of appends) await this.afterAppend(part.streamId, part.events);
    return results;
  }

  /** Read, opened, and written again under the target's key: a copy is a thread of its own. */
  override async copyStream(source: string, target: string): Promise<AppendResult | undefined> {
    const events = await this.copiesOf(source);
    if (events.length === 0) return undefined;
    return this.append(target, events, { expectedPosition: 'no_stream' });
  }

  override async copyStreamAndAppend(
    source: string,
    target: string,
    streamId: string,
    events: readonly EventToAppend[],
    options?: AppendOptions,
  ): Promise<AppendResult> {
    const copies = await this.copiesOf(source);
    const parts: StreamAppend[] = [
      ...(copies.length > 0
        ? [{ streamId: target, events: copies, expectedPosition: 'no_stream' as const }]
        : []),
      { streamId, events, expectedPosition: options?.expectedPosition },
    ];
    const results = await this.appendAll(parts);
    const appended = results.at(-1);
    if (!appended) throw new Error(`Nothing was appended to ${streamId}`);
    return appended;
  }

  async readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readStream(streamId, options));
  }

  async readLog(options?: ReadLogOptions): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readLog(options));
  }

  headPosition(): Promise<LogPosition> {
    return this.inner.headPosition();
  }

  subscribeToStream(streamId: string, options?: StreamSubscriptionOptions): Subscription {
    return this.openedSubscription(this.inner.subscribeToStream(streamId, options));
  }

  subscribeToLog(options?: LogSubscriptionOptions): Subscription {
    return this.openedSubscription(this.inner.subscribeToLog(options));
  }

  deleteStream(streamId: string): Promise<void> {
    return this.inner.deleteStream(streamId);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async copiesOf(source: string): Promise<EventToAppend[]> {
    const events = await this.readStream(source);
    return events.map((event) => ({
      eventId: uuidv7(),
      type: event.type,
      data: event.data,
    }));
  }

  private async seal(
    streamId: string,
    events: readonly EventToAppend[],
  ): Promise<readonly EventToAppend[]> {
    const stream = threadStreamOf(streamId);
    if (!stream) {
      const resource = resourceStreamOf(streamId);
      return resource ? this.resources.seal(resource, streamId, events) : events;
    }
    if (events.every((event) => isErasure(event.type))) return events;
    const first = events[0];
    if (stream.kind === 'run' && first?.type === 'RunCreated') {
      this.threads.noteRun(stream.runId, first.data['thread_id']);
    }
    const threadId = await this.threads.threadOf(stream);
    const creates = events.some((event) => CREATES_THREAD.has(event.type));
    const { keyId, key } = await this.threads.keyToWrite(threadId, creates);
    return events.map((event) =>
      isErasure(event.type)
        ? event
        : {
            ...event,
            data: sealFields(event.data, isSkeletonField, keyId, key, true),
          },
    );
  }

  private async afterAppend(streamId: string, events: readonly EventToAppend[]): Promise<void> {
    const stream = threadStreamOf(streamId);
    if (stream?.kind === 'thread' && events.some((event) => isErasure(event.type))) {
      await this.threads.erased(stream.threadId);
    }
    const resource = stream ? undefined : resourceStreamOf(streamId);
    if (resource) await this.resources.afterAppend(resource, events);
  }

  /** Opened in place when every key is in memory (a replay's case); with a lookup where one is not. */
  private openAll(events: readonly RecordedEvent[]): Promise<RecordedEvent[]> | RecordedEvent[] {
    const opened: RecordedEvent[] = new Array<RecordedEvent>(events.length);
    for (let index = 0; index < events.length; index += 1) {
      const event = events[index] as RecordedEvent;
      const now = this.openNow(event);
      if (now === undefined) return this.openRest(opened, events, index);
      opened[index] = now;
    }
    return opened;
  }

  private async openRest(
    opened: RecordedEvent[],
    events: readonly RecordedEvent[],
    from: number,
  ): Promise<RecordedEvent[]> {
    const rest = await Promise.all(events.slice(from).map((event) => this.open(event)));
    rest.forEach((event, offset) => {
      opened[from + offset] = event;
    });
    return opened;
  }

  private async open(event: RecordedEvent): Promise<RecordedEvent> {
    const sealed = this.notice(event);
    if (!sealed) return event;
    return this.opened(event, sealed, await this.keys.keyById(sealed.key_id));
  }

  /** The event opened, or undefined when its key must be looked up first. */
  private openNow(event: RecordedEvent): RecordedEvent | undefined {
    const sealed = this.notice(event);
    if (!sealed) return event;
    const key = this.keys.keyInMemory(sealed.key_id);
    return key && this.opened(event, sealed, key);
  }

  private opened(
    event: RecordedEvent,
    sealed: SealedFields,
    key: Buffer | undefined,
  ): RecordedEvent {
    if (!key) {
      const skeleton = skeletonOf(event.data);
      return {
        ...event,
        type: CONTENT_ERASED,
        data: { ...skeleton, erased_type: event.type, erased_bytes: sealed.bytes },
      };
    }
    return { ...event, data: openFields(event.data, sealed, key) };
  }

  /** Notes what the event tells of threads and resources; returns its sealed part, if it has one. */
  private notice(event: RecordedEvent): SealedFields | undefined {
    const stream = threadStreamOf(event.streamId);
    if (stream) this.noticeThread(stream, event);
    else {
      const resource = resourceStreamOf(event.streamId);
      if (resource) this.resources.notice(resource, event);
    }
    return sealedPartOf(event.data);
  }

  /** What a read tells of threads: which thread a run belongs to, which thread is gone. */
  private noticeThread(stream: ThreadStreamOf, event: RecordedEvent): void {
    if (stream.kind === 'run') this.threads.noteRun(stream.runId, event.data['thread_id']);
    if (stream.kind === 'thread' && isErasure(event.type)) this.threads.forget(stream.threadId);
  }

  private openedSubscription(subscription: Subscription): Subscription {
    const open = (event: RecordedEvent): RecordedEvent | Promise<RecordedEvent> =>
      this.openNow(event) ?? this.open(event);
    return {
      close: () => subscription.close(),
      ...(subscription.readNow ? { readNow: () => subscription.readNow?.() } : {}),
      async *[Symbol.asyncIterator]() {
        for await (const event of subscription) yield await open(event);
      },
    };
  }
}
