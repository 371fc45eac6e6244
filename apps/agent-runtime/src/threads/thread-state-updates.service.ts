import { Inject, Injectable } from '@nestjs/common';
import { EventStore, uuidv7, type JsonObject, type JsonValue } from '#libs/event-store';
import { DomainError, notFound } from '#libs/domain';
import { isUuid } from '../common/uuid5.js';
import { Application } from '../application/application.js';
import {
  CHECKPOINT_METADATA_PATCHED,
  checkpointStreamOf,
  foldCheckpointEvents,
  type CheckpointHold,
} from '../checkpoints/index.js';
import type { GraphCommand } from '../execution/graph-stream.js';
import { RunQueue } from '../run-records/run-queue.js';
import type { ThreadRow } from './thread.entity.js';
import { summarizeState, type StateSnapshotLike } from './thread-state.resource.js';
import { ThreadsService, type ThreadKey } from './threads.service.js';
import { ThreadCommands } from './thread-commands.js';
import type { CheckpointAddress } from './checkpoint-address.js';
import { threadGraphConfig } from './thread-graph-config.js';

export interface StateUpdate {
  readonly values: JsonValue | undefined;
  readonly asNode: string | undefined;
  readonly checkpoint: CheckpointAddress;
  readonly checkpointId: string | undefined;
}

/** One superstep of `POST /threads` `supersteps`: updates applied as if by one step. */
export interface Superstep {
  readonly updates: readonly {
    readonly values?: JsonValue;
    readonly command?: GraphCommand | null;
    readonly as_node?: string;
  }[];
}

type NextConfig = { configurable?: Record<string, unknown> };

interface UpdatableGraph {
  updateState(
    config: Record<string, unknown>,
    values: unknown,
    asNode?: string,
  ): Promise<NextConfig>;
  bulkUpdateState(
    config: Record<string, unknown>,
    supersteps: { updates: { values: unknown; asNode?: string }[] }[],
  ): Promise<NextConfig>;
  getState(config: Record<string, unknown>): Promise<unknown>;
}

/** A state write: where it starts, the node it is written as, when, and the graph call doing it. */
interface HeldWrite {
  readonly from: JsonObject;
  readonly asNode: string | null;
  readonly now: string;
  readonly apply: (graph: UpdatableGraph, config: Record<string, unknown>) => Promise<NextConfig>;
}

/** LangGraph's refusals of an update (an unknown node, an ambiguous writer) are the caller's. */
const REFUSED_UPDATES = new Set(['InvalidUpdateError', 'EmptyInputError']);

/** What a state update answers: the checkpoint it wrote (the SDK's `ThreadUpdateStateResponse`). */
export interface StateUpdated {
  readonly checkpoint: JsonObject;
}

/**
 * Writes to a thread's state by hand: the thread's graph writes each update as a new checkpoint
 * (an event of the thread's checkpoint stream), and the thread records the state it leads to. No
 * run may start on the thread meanwhile, and none may be in flight.
 */
@Injectable()
export class ThreadStateUpdates {
  constructor(
    @Inject(Application) private readonly application: Application,
    @Inject(RunQueue) private readonly queue: RunQueue,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(ThreadCommands) private readonly threadCommands: ThreadCommands,
    @Inject(EventStore) private readonly store: EventStore,
  ) {}

  /** `POST /threads/{id}/state`. */
  async update(threadId: string, update: StateUpdate, now: string): Promise<StateUpdated> {
    if (!isUuid(threadId)) throw notFound(`Thread ${threadId} not found`);
    const from = {
      ...(update.checkpointId ? { checkpoint_id: update.checkpointId } : {}),
      ...update.checkpoint,
    };
    return this.write(threadId, undefined, {
      from,
      asNode: update.asNode ?? null,
      now,
      apply: (graph, config) => graph.updateState(config, update.values ?? null, update.asNode),
    });
  }

  /** `PATCH /threads/{id}/state`: keys merged into the metadata of the thread's latest checkpoint. */
  async patchMetadata(threadId: string, metadata: JsonObject): Promise<void> {
    await this.threads.row(threadId);
    await this.queue.whileIdle(threadId, async () => {
      const stream = checkpointStreamOf(threadId);
      const latest = foldCheckpointEvents(await this.store.readStream(stream)).latest('');
      if (!latest) throw new DomainError('bad_request', `Thread ${threadId} has no checkpoint yet`);
      if (latest.metadata.type !== 'json') {
        throw new DomainError(
          'bad_request',
          `The metadata of checkpoint ${latest.id} is not stored as JSON and cannot be patched`,
        );
      }
      await this.store.append(stream, [
        {
          eventId: uuidv7(),
          type: CHECKPOINT_METADATA_PATCHED,
          data: { checkpoint_ns: '', checkpoint_id: latest.id, metadata },
        },
      ]);
    });
  }

  /** `POST /threads` with `supersteps`: the thread's history built from a list of updates. */
  async applySupersteps(
    thread: ThreadRow,
    supersteps: readonly Superstep[],
    now: string,
  ): Promise<StateUpdated> {
    const graphId = this.graphOf(thread);
    const createCommand = await this.application.createCommand(graphId);
    const lastNode = supersteps.at(-1)?.updates.at(-1)?.as_node ?? null;
    return this.write(thread.thread_id, thread, {
      from: {},
      asNode: lastNode,
      now,
      apply: (graph, config) =>
        graph.bulkUpdateState(
          config,
          supersteps.map((superstep) => ({
            updates: superstep.updates.map((update) => ({
              values: update.command ? createCommand(update.command) : (update.values ?? null),
              asNode: update.as_node,
            })),
          })),
        ),
    });
  }

  /** `thread`: its row when the caller has it; otherwise it is read with the thread's lock. */
  private async write(
    threadId: string,
    thread: ThreadKey | undefined,
    write: HeldWrite,
  ): Promise<StateUpdated> {
    return this.queue.whileIdle(
      threadId,
      async (found) => {
        const key = thread ?? found ?? (await this.threads.row(threadId));
        const graphId = this.graphOf(key);
        return this.application.holdingCheckpoints(graphId, threadId, (checkpoints) =>
          this.writeHeld(graphId, key, checkpoints, write),
        );
      },
      thread ? undefined : this.threads.rowUnderLock(threadId),
    );
  }

  /** The update, while the thread is idle and its checkpoints held. */
  private async writeHeld(
    graphId: string,
    thread: ThreadKey,
    checkpoints: CheckpointHold,
    write: HeldWrite,
  ): Promise<StateUpdated> {
    const threadId = thread.thread_id;
    const graph = (await this.application.graph(
      graphId,
      threadGraphConfig(thread),
    )) as unknown as UpdatableGraph;
    const next = await refusedAsBadRequest(() =>
      write.apply(graph, {
        configurable: { thread_id: threadId, checkpoint_ns: '', ...write.from },
      }),
    );
    const checkpoint = (next.configurable ?? {}) as JsonObject;
    const snapshot = (await graph.getState({
      configurable: { thread_id: threadId },
    })) as StateSnapshotLike;
    // The new checkpoint and the state it leads to land together, or neither does.
    await checkpoints.appendWith((append) =>
      this.threadCommands.recordStateUpdate(
        threadId,
        {
          ...summarizeState(snapshot),
          checkpoint_id:
            typeof checkpoint.checkpoint_id === 'string' ? checkpoint.checkpoint_id : '',
          as_node: write.asNode,
          updated_at: write.now,
        },
        append,
      ),
    );
    return { checkpoint };
  }

  /** The graph a thread's state belongs to: `metadata.graph_id`, set by its first run. */
  graphOf(thread: Pick<ThreadKey, 'thread_id' | 'metadata'>): string {
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== 'string') {
      throw new DomainError(
        'bad_request',
        `Thread ${thread.thread_id} has no graph yet: run it once, or create it with metadata.graph_id`,
      );
    }
    if (!this.application.graphIds().includes(graphId)) {
      throw new DomainError(
        'bad_request',
        `Thread ${thread.thread_id} names graph ${graphId}, which this application does not have`,
      );
    }
    return graphId;
  }
}

async function refusedAsBadRequest<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof Error && REFUSED_UPDATES.has(error.name)) {
      throw new DomainError('bad_request', error.message);
    }
    throw error;
  }
}
