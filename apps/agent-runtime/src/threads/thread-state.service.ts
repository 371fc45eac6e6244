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
  readonly checkpoint?: JsonObject;
}

/** A thread's state and history, computed by its graph from the checkpoints in the log. */
@Injectable()
export class ThreadStateService {
  constructor(
    @Inject(Application) private readonly application: Application,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
  ) {}

  async state(
    threadId: string,
    checkpointId: string | undefined,
    subgraphs: boolean,
  ): Promise<ThreadStateResource> {
    const thread = await this.threads.row(threadId);
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== 'string') return EMPTY_THREAD_STATE;
    const graph = await this.application.graph(graphId, {
      configurable: { thread_id: thread.thread_id },
    });
    const snapshot = (await graph.getState(
      {
        configurable: {
          thread_id: thread.thread_id,
          checkpoint_ns: '',
          ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
        },
      },
      { subgraphs },
    )) as StateSnapshotLike;
    if (checkpointId && snapshot.createdAt === undefined) {
      throw notFound(`Checkpoint ${checkpointId} not found`);
    }
    return threadStateResource(snapshot);
  }

  async history(threadId: string, options: HistoryOptions): Promise<ThreadStateResource[]> {
    const thread = await this.threads.row(threadId);
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== 'string') return [];
    const graph = (await this.application.graph(graphId, {
      configurable: { thread_id: thread.thread_id },
    })) as unknown as HistoryGraph;
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
