import type { EventCheckpointSaver } from '../checkpoints/index.js';
import type { GraphCommand } from '../execution/graph-stream.js';
import type { CompiledGraphLike, LangGraphBindings } from '../graphs/graph-loader.js';
import { commandFactory } from './graph-commands.js';
import { rollBackThread, type RollbackCheckpoints } from './thread-rollback.js';

/**
 * One run's graph, bound once: the graph its config builds, with the checkpointer and store of the
 * application's own LangGraph, and what a run does with them.
 */
export class RunGraph {
  /** Builds a LangGraph Command with the application's own class; `goto` items may be Sends. */
  readonly createCommand: (command: GraphCommand) => unknown;

  constructor(
    readonly graph: CompiledGraphLike,
    /** The run's config, which built the graph (a factory export is called with it). */
    readonly config: Record<string, unknown>,
    private readonly saver: EventCheckpointSaver,
    private readonly bindings: LangGraphBindings,
  ) {
    this.createCommand = commandFactory(bindings.Command, bindings.langgraphModule.Send);
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
  state(threadId: string): Promise<unknown> {
    return this.graph.getState({ configurable: { thread_id: threadId } });
  }
}

/** Why a run's graph could not be built: its attempt fails with it. */
export class GraphNotBound {
  constructor(readonly cause: unknown) {}
}
