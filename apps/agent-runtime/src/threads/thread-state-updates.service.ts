import { Inject, Injectable } from '@nestjs/common';
import type { JsonObject, JsonValue } from '#libs/event-store';
import { DomainError } from '#libs/http';
import { Application } from '../application/application.js';
import { RunQueue } from '../runs/run-queue.js';
import type { ThreadRow } from './thread.entity.js';
import { summarizeState, type StateSnapshotLike } from './thread-state.resource.js';
import { ThreadsService } from './threads.service.js';

export interface StateUpdate {
  readonly values: JsonValue | undefined;
  readonly asNode: string | undefined;
  readonly checkpoint: JsonObject | undefined;
  readonly checkpointId: string | undefined;
}

interface UpdatableGraph {
  updateState(
    config: Record<string, unknown>,
    values: unknown,
    asNode?: string,
  ): Promise<{ configurable?: Record<string, unknown> }>;
  getState(config: Record<string, unknown>): Promise<unknown>;
}

/** LangGraph's refusals of an update (an unknown node, an ambiguous writer) are the caller's. */
const REFUSED_UPDATES = new Set(['InvalidUpdateError', 'EmptyInputError']);

/**
 * `POST /threads/{id}/state`: the thread's graph writes the update as a new checkpoint (an event
 * of the thread's checkpoint stream), and the thread records the state it leads to. No run may
 * start on the thread meanwhile, and none may be in flight.
 */
@Injectable()
export class ThreadStateUpdates {
  constructor(
    @Inject(Application) private readonly application: Application,
    @Inject(RunQueue) private readonly queue: RunQueue,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
  ) {}

  async update(thread: ThreadRow, update: StateUpdate, now: string): Promise<JsonObject> {
    const threadId = thread.thread_id;
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== 'string') {
      throw new DomainError(
        'bad_request',
        `Thread ${threadId} has no graph yet: run it once before updating its state`,
      );
    }
    return this.queue.whileIdle(threadId, async () => {
      const graph = (await this.application.graph(graphId, {
        configurable: { thread_id: threadId },
      })) as unknown as UpdatableGraph;
      const next = await this.write(
        graph,
        {
          configurable: {
            thread_id: threadId,
            checkpoint_ns: '',
            ...(update.checkpointId ? { checkpoint_id: update.checkpointId } : {}),
            ...(update.checkpoint ?? {}),
          },
        },
        update,
      );
      const checkpoint = (next.configurable ?? {}) as JsonObject;
      const snapshot = (await graph.getState({
        configurable: { thread_id: threadId },
      })) as StateSnapshotLike;
      await this.threads.recordStateUpdate(threadId, {
        ...summarizeState(snapshot),
        checkpoint_id: typeof checkpoint.checkpoint_id === 'string' ? checkpoint.checkpoint_id : '',
        as_node: update.asNode ?? null,
        updated_at: now,
      });
      return { checkpoint };
    });
  }

  private async write(
    graph: UpdatableGraph,
    config: Record<string, unknown>,
    update: StateUpdate,
  ): Promise<{ configurable?: Record<string, unknown> }> {
    try {
      return await graph.updateState(config, update.values ?? null, update.asNode);
    } catch (error) {
      if (error instanceof Error && REFUSED_UPDATES.has(error.name)) {
        throw new DomainError('bad_request', error.message);
      }
      throw error;
    }
  }
}
