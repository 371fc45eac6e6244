import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject } from '#libs/event-store';
import { Application } from '../application/application.js';
import { notFound } from '#libs/domain';
import {
  EMPTY_THREAD_STATE,
  threadStateResource,
  type StateSnapshotLike,
  type ThreadStateResource,
} from './thread-state.resource.js';
import { ThreadsService } from './threads.service.js';
import type { CheckpointAddress } from './checkpoint-address.js';
import { threadGraphConfig } from './thread-graph-config.js';

interface HistoryGraph {
  getStateHistory(
    config: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): AsyncIterable<StateSnapshotLike>;
}

export interface HistoryOptions {
  readonly limit: number;
  readonly before?: JsonObject;
  readonly filter?: JsonObject;
  readonly checkpoint?: CheckpointAddress;
}

/** A thread's state and history, computed by its graph from the checkpoints in the log. */
@Injectable()
export class ThreadStateService {
  constructor(
    @Inject(Application) private readonly application: Application,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
  ) {}

  /**
   * The thread's state at `at` (the latest of the root graph when absent). With a subgraph's
   * `checkpoint_ns`, LangGraph answers the subgraph's state.
   */
  async state(
    threadId: string,
    at: CheckpointAddress | undefined,
    subgraphs: boolean,
  ): Promise<ThreadStateResource> {
    const thread = await this.threads.row(threadId);
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== 'string') return EMPTY_THREAD_STATE;
    const graph = await this.application.graph(graphId, threadGraphConfig(thread));
    const snapshot = (await graph.getState(
      { configurable: { thread_id: thread.thread_id, checkpoint_ns: '', ...at } },
      { subgraphs },
    )) as StateSnapshotLike;
    if (at?.checkpoint_id && snapshot.createdAt === undefined) {
      throw notFound(`Checkpoint ${at.checkpoint_id} not found`);
    }
    return threadStateResource(snapshot);
  }

  async history(threadId: string, options: HistoryOptions): Promise<ThreadStateResource[]> {
    const thread = await this.threads.row(threadId);
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== 'string') return [];
    const graph = (await this.application.graph(
      graphId,
      threadGraphConfig(thread),
    )) as unknown as HistoryGraph;
    const states: ThreadStateResource[] = [];
    const history = graph.getStateHistory(
      {
        configurable: {
          thread_id: thread.thread_id,
          checkpoint_ns: '',
          ...(options.checkpoint ?? {}),
        },
      },
      { limit: options.limit, before: options.before, filter: options.filter },
    );
    for await (const snapshot of history) states.push(threadStateResource(snapshot));
    return states;
  }
}
