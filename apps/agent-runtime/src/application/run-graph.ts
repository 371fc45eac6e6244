import type { EventCheckpointSaver } from '../checkpoints/index.js';
import type { GraphCommand } from '../execution/graph-stream.js';
import type { CompiledGraphLike, LangGraphBindings } from '../graphs/graph-loader.js';
import { commandFactory } from './graph-commands.js';
import { rollBackThread, type RollbackCheckpoints } from './thread-rollback.js';

/**
 * One run's graph, bound once: the checkpointer and `Command` of the application's own LangGraph,
 * what a run does with its thread's checkpoints, and the graph its config builds, built once and
 * only when the run needs it (a run cancelled before it started never calls a graph factory).
 */
export class RunGraph {
  /** Builds a LangGraph Command with the application's own class; `goto` items may be Sends. */
  readonly createCommand: (command: GraphCommand) => unknown;
  private built: Promise<CompiledGraphLike> | undefined;

  constructor(
    /** The run's config, which builds the graph (a factory export is called with it). */
    readonly config: Record<string, unknown>,
    private readonly saver: EventCheckpointSaver,
    private readonly bindings: LangGraphBindings,
    private readonly build: () => Promise<CompiledGraphLike>,
  ) {
    this.createCommand = commandFactory(bindings.Command, bindings.langgraphModule.Send);
  }

  /** The graph, with its checkpointer and store: built at the first call. */
  graph(): Promise<CompiledGraphLike> {
    this.built ??= this.build();
    return this.built;
  }

  /**
   * Runs `work` as the only writer of the thread's checkpoints (a run holding the thread): only
   * the first read of them queries the log.
   */
  owning<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    return this.saver.storage.owned(threadId, work);
  }

  /**
   * Runs `work` with the thread's checkpoint writes trailing behind the graph (a run under
   * `async` durability): resolves once they are all in the log.
   */
  trailing<T>(threadId: string, work: () => Promise<T>): Promise<T> {
    return this.saver.storage.withTrailingWrites(threadId, work);
  }

  /** Gives the thread back the state it had before the run (see thread-rollback.ts). */
  rollBack(threadId: string, runId: string): Promise<void> {
    const checkpoints = {
      saver: this.saver,
      library: this.bindings.checkpointModule,
    } as unknown as RollbackCheckpoints;
    return rollBackThread(checkpoints, threadId, runId);
  }

  /** The thread's state as the graph reads it back from its checkpoints. */
  async state(threadId: string): Promise<unknown> {
    return (await this.graph()).getState({ configurable: { thread_id: threadId } });
  }
}

/** Why a run's graph could not be built: its attempt fails with it. */
export class GraphNotBound {
  constructor(readonly cause: unknown) {}
}
