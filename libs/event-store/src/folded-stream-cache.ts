import type { EventStore, RecordedEvent } from './event-store.port.js';

/** A stream folded up to one of its events. */
export interface FoldedStream<State> {
  readonly state: State;
  /** The position of the last event folded in; -1 for a stream with no event. */
  readonly position: number;
}

interface CachedFold<State> extends FoldedStream<State> {
  readonly eventId: string;
}

/**
 * The folded state of recently used streams, so that deciding on a long stream reads only what
 * was appended since. A stream is caught up by reading from the last position folded, that event
 * included: getting it back unchanged proves the stream is still the one folded; a stream that
 * was deleted (and maybe begun again) since is folded again from its start.
 */
export class FoldedStreamCache<State> {
  private readonly folds = new Map<string, CachedFold<State>>();

  constructor(
    private readonly initialState: State,
    private readonly evolve: (state: State, event: RecordedEvent) => State,
    private readonly maxStreams = 1_000,
    /**
     * Commands decide on what is kept without reading first, and read only when their append
     * finds that another writer was there: for a stream's usual writer. Only for streams that are
     * never deleted, since a stream begun again could reach the kept position with other events.
     */
    readonly optimistic = false,
  ) {}

  /** What is kept of the stream, without reading it; undefined when nothing is. */
  peek(streamId: string): FoldedStream<State> | undefined {
    return this.folds.get(streamId);
  }

  async load(store: EventStore, streamId: string): Promise<FoldedStream<State>> {
    const cached = this.folds.get(streamId);
    if (cached) {
      const page = await store.readStream(streamId, { fromPosition: cached.position });
      const [head, ...fresh] = page;
      if (head?.streamPosition === cached.position && head.eventId === cached.eventId) {
        return this.fold(streamId, cached, fresh);
      }
    }
    const all = await store.readStream(streamId);
    return this.fold(streamId, { state: this.initialState, position: -1, eventId: '' }, all);
  }

  /**
   * A stream about to begin under an id no one else can know yet (one this process just made):
   * kept as empty, so that an optimistic first command appends without reading.
   */
  begin(streamId: string): void {
    this.keep(streamId, { state: this.initialState, position: -1, eventId: '' });
  }

  /** What a writer that just appended knows: the state its events lead to, and the last one. */
  remember(streamId: string, state: State, position: number, eventId: string): void {
    this.keep(streamId, { state, position, eventId });
  }

  private fold(
    streamId: string,
    from: CachedFold<State>,
    events: readonly RecordedEvent[],
  ): FoldedStream<State> {
    const last = events.at(-1);
    if (!last) {
      if (from.position >= 0) this.keep(streamId, from);
      return from;
    }
    const folded = {
      state: events.reduce(this.evolve, from.state),
      position: last.streamPosition,
      eventId: last.eventId,
    };
    this.keep(streamId, folded);
    return folded;
  }

  private keep(streamId: string, fold: CachedFold<State>): void {
    this.folds.delete(streamId);
    this.folds.set(streamId, fold);
    for (const oldest of this.folds.keys()) {
      if (this.folds.size <= this.maxStreams) return;
      this.folds.delete(oldest);
    }
  }
}
