import type { Decider, DomainEvent } from '#libs/domain';
import { handleCommand, type Appender, type CommandOutcome } from './decider.js';
import type { EventStore, JsonObject } from './event-store.port.js';
import type { FoldedStreamCache } from './folded-stream-cache.js';

/** What binds an aggregate's commands: its store, its decider, its streams, its kept folds. */
export interface AggregateOptions<State, Command, Event extends DomainEvent, Id = string> {
  readonly store: EventStore;
  readonly decider: Decider<State, Command, Event>;
  /** The stream of one aggregate, by its id. */
  readonly streamOf: (id: Id) => string;
  /** Folds kept between commands (see foldCacheOf); without one, each command keeps its own. */
  readonly folds?: FoldedStreamCache<State>;
}

/** What one command brings besides itself. */
export interface CommandContext {
  /** Stored with every event the command appends (who caused it, for an audit trail). */
  readonly metadata?: JsonObject;
  /** How the events are appended, when the command writes more with them. */
  readonly append?: Appender;
}

/**
 * The command side of one aggregate, bound once: a command for an id is decided on the
 * aggregate's state and its events appended at the position read (see handleCommand).
 */
export class AggregateCommands<State, Command, Event extends DomainEvent, Id = string> {
  constructor(private readonly options: AggregateOptions<State, Command, Event, Id>) {}

  handle(
    id: Id,
    command: Command,
    context: CommandContext = {},
  ): Promise<CommandOutcome<State, Event>> {
    const { store, decider, streamOf, folds } = this.options;
    return handleCommand({
      store,
      streamId: streamOf(id),
      decider,
      command,
      cache: folds,
      ...context,
    });
  }
}
