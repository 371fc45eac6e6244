import { Logger } from '@nestjs/common';
import type { EventCheckpointSaver } from '../checkpoints/index.js';
import type { GraphCommand } from '../execution/graph-stream.js';
import type { CompiledGraphLike, LangGraphBindings } from '../graphs/graph-loader.js';
import { commandFactory } from './graph-commands.js';
import { rollBackThread, type RollbackCheckpoints } from './thread-rollback.js';

/** A run's graph as built from its config, with what runs it. */
export interface BuiltRunGraph {
  readonly graph: CompiledGraphLike;
  /** The run's config, which built the graph (a factory export is called with it). */
  readonly config: Record<string, unknown>;
  /** Builds a LangGraph Command with the application's own class; `goto` items may be Sends. */
  readonly createCommand: (command: GraphCommand) => unknown;
}

/** One run's graph, bound once for the run: what the run does with it and its thread's checkpoints. */
export interface RunGraph {
  /** The graph, built at the first call; rejects when it cannot be built. */
  built(): Promise<BuiltRunGraph>;
  /**
   * Runs `work` as the only writer of the thread's checkpoints (a run holding the thread): only
   * the first read of them queries the log.
   */
  owning<T>(threadId: string, work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` with the thread's checkpoint writes trailing behind the graph (a run under
   * `async` durability): resolves once they are all in the log.
   */
  trailing<T>(threadId: string, work: () => Promise<T>): Promise<T>;
  /** Gives the thread back the state it had before the run (see thread-rollback.ts). */
  rollBack(threadId: string, runId: string): Promise<void>;
  /** The thread's state as the graph reads it back from its checkpoints; undefined when it cannot. */
  finalState(threadId: string): Promise<unknown>;
}

const logger = new Logger('runs');

/** The run's graph of a served graph id: the checkpointer and `Command` of the application's own LangGraph. */
export class BoundRunGraph implements RunGraph {
  private building: Promise<BuiltRunGraph> | undefined;

  constructor(
    private readonly config: Record<string, unknown>,
    private readonly saver: EventCheckpointSaver,
    private readonly bindings: LangGraphBindings,
    private readonly build: () => Promise<CompiledGraphLike>,
  ) {}

  built(): Promise<BuiltRunGraph> {
    this.building ??= this.build().then((graph) => ({
      graph,
      config: this.config,
      createCommand: commandFactory(this.bindings.Command, this.bindings.langgraphModule.Send),
    }));
    return this.building;
  }

  owning<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    return this.saver.storage.owned(threadId, work);
  }

  trailing<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    return this.saver.storage.withTrailingWrites(threadId, work);
  }

  rollBack(threadId: string, runId: string): Promise<void> {
    const checkpoints = {
      saver: this.saver,
      library: this.bindings.checkpointModule,
    } as unknown as RollbackCheckpoints;
    return rollBackThread(checkpoints, threadId, runId);
  }

  async finalState(threadId: string): Promise<unknown> {
    try {
      const { graph } = await this.built();
      return await graph.getState({ configurable: { thread_id: threadId } });
    } catch (error) {
      logger.warn(`The state of thread ${threadId} could not be read: ${describe(error)}`);
      return undefined;
    }
  }
}

/**
 * The run's graph when its graph id could not be bound (not served, or its module failed to
 * load): the run's attempt fails with why, and nothing touches the thread's checkpoints.
 */
export class UnboundRunGraph implements RunGraph {
  constructor(private readonly cause: unknown) {}

  built(): Promise<BuiltRunGraph> {
    const { cause } = this;
    return Promise.reject(cause instanceof Error ? cause : new Error(String(cause)));
  }

  owning<T>(_threadId: string, work: () => Promise<T>): Promise<T> {
    return work();
  }

  trailing<T>(_threadId: string, work: () => Promise<T>): Promise<T> {
    return work();
  }

  async rollBack(): Promise<void> {}

  finalState(): Promise<unknown> {
    return Promise.resolve(undefined);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
