import { domainEventOf, type Decider, type DomainEvent } from '#libs/domain';
import { WrongExpectedPositionError } from './event-store.errors.js';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  EventToAppend,
  JsonObject,
} from './event-store.port.js';
import { FoldedStreamCache, type FoldedStream } from './folded-stream-cache.js';
import { uuidv7 } from './uuid-v7.js';

export interface CommandOutcome<State, Event> {
  /** The state after the new events. */
  readonly state: State;
  readonly events: Event[];
  /** Undefined when the decision produced no event. */
  readonly appended: AppendResult | undefined;
}

/** Appends a command's events to its stream, at the position the command was decided on. */
export type Appender = (
  streamId: string,
  events: readonly EventToAppend[],
  options: AppendOptions,
) => Promise<AppendResult>;

const MAX_ATTEMPTS = 16;

/** A random pause that grows with each lost race, so that contending writers spread out. */
function backOff(attempt: number): Promise<void> {
  const ceilingMs = Math.min(100, 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceilingMs));
}

type Evolving<State, Event extends DomainEvent> = Pick<
  Decider<State, never, Event>,
  'initialState' | 'evolve'
>;

/** Reads a whole stream and folds it: the state and the position of its last event (-1: none). */
export async function foldStream<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Evolving<State, Event>,
): Promise<FoldedStream<State>> {
  const events = await store.readStream(streamId);
  return {
    state: events.reduce(
      (state, event) => decider.evolve(state, domainEventOf<Event>(event)),
      decider.initialState,
    ),
    position: events.at(-1)?.streamPosition ?? -1,
  };
}

/** A cache of a decider's folds: a command then reads only what was appended since the last. */
export function foldCacheOf<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
  maxStreams?: number,
  optimistic = false,
): FoldedStreamCache<State> {
  return new FoldedStreamCache<State>(
    decider.initialState,
    (state, event) => decider.evolve(state, domainEventOf<Event>(event)),
    maxStreams,
    optimistic,
  );
}

/** One command for one stream, with how its events are stored. */
export interface CommandRequest<State, Command, Event extends DomainEvent> {
  readonly store: EventStore;
  readonly streamId: string;
  readonly decider: Decider<State, Command, Event>;
  readonly command: Command;
  /** Stored with every event the command appends (who caused it, for an audit trail). */
  readonly metadata?: JsonObject;
  /** Folds kept between commands; without one, the command keeps its own. */
  readonly cache?: FoldedStreamCache<State>;
  /** How the decided events are appended: `store.append` unless the command writes more with them. */
  readonly append?: Appender;
}

/**
 * Reads the stream (with a kept cache, only what is new to it; with an optimistic one, nothing
 * until an append finds another writer), folds it, decides and appends at the position it read.
 * A concurrent writer makes the append fail; the command is then decided again on the new state,
 * after a short random pause, up to MAX_ATTEMPTS times; then the conflict reaches the caller (409).
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  request: CommandRequest<State, Command, Event>,
): Promise<CommandOutcome<State, Event>> {
  const { store, streamId, decider, command, metadata, cache } = request;
  const append: Appender =
    request.append ?? ((stream, events, options) => store.append(stream, events, options));
  // Without a kept cache, one for this command: a retry then reads only what the winner wrote.
  const folds = cache ?? foldCacheOf(decider, 1);
  for (let attempt = 1; ; attempt += 1) {
    const kept = folds.optimistic && attempt === 1 ? folds.peek(streamId) : undefined;
    const { state: current, position } = kept ?? (await folds.load(store, streamId));
    const events = decider.decide(command, current);
    const state = events.reduce((s, event) => decider.evolve(s, event), current);
    if (events.length === 0) return { state, events, appended: undefined };
    const toAppend = events.map((event) => ({
      eventId: uuidv7(),
      type: event.type,
      data: event.data,
      metadata,
    }));
    try {
      const appended = await append(streamId, toAppend, {
        expectedPosition: position >= 0 ? position : 'no_stream',
      });
      const lastId = toAppend.at(-1)?.eventId;
      if (lastId) folds.remember(streamId, state, appended.streamPosition, lastId);
      return { state, events, appended };
    } catch (error) {
      // A conflict on another stream written alongside (by `append`) is not this command's.
      const ownConflict =
        error instanceof WrongExpectedPositionError && error.streamId === streamId;
      if (!ownConflict || attempt >= MAX_ATTEMPTS) throw error;
      await backOff(attempt);
    }
  }
}
