import { ValuesChunkExpander } from '../run-records/values-chunk-expander.js';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '#libs/domain';
import { refusalStatusOf } from '#libs/http';
import { EventStore, type JsonObject, type JsonValue } from '#libs/event-store';
import type { RunCaller } from '../auth/run-caller.js';
import { RunsService } from '../runs/runs.service.js';
import { CommandBus } from '@nestjs/cqrs';
import { CreateRun } from '../runs/create-run/create-run.command.js';
import type { CreateRunDto } from '../runs/create-run/create-run.dto.js';
import { runStream } from '../run-records/run.events.js';
import { ThreadStateService } from '../threads/thread-state.service.js';
import type { ThreadStateResource } from '../threads/thread-state.resource.js';
import { ThreadsService } from '../threads/threads.service.js';
import { isJsonObject } from '../common/json-object.js';
import {
  ProtocolError,
  protocolFailure,
  protocolSuccess,
  type ProtocolCommand,
  type ProtocolResponse,
} from '../protocol-events/protocol-event.js';
import { RunTranslator } from '../protocol-events/run-translator.js';
import { agentTree } from '../protocol-events/agent-tree.js';
import { namespaceParam, objectParam, requiredString, stringParam } from './protocol-params.js';
import { protocolRunBody } from './protocol-run-body.js';

const now = (): string => new Date().toISOString();

/** The open interrupts of a state, by id. */
function openInterrupts(state: ThreadStateResource): Set<string> {
  const ids = new Set<string>();
  const tasks = Array.isArray(state.tasks) ? state.tasks : [];
  for (const task of tasks) {
    const interrupts = isJsonObject(task) && Array.isArray(task.interrupts) ? task.interrupts : [];
    for (const interrupt of interrupts) {
      if (isJsonObject(interrupt) && typeof interrupt.id === 'string') ids.add(interrupt.id);
    }
  }
  return ids;
}

/** The state of the subgraph at a namespace, found among the tasks' states. */
function stateAt(state: ThreadStateResource, namespace: readonly string[]): JsonObject | undefined {
  const wanted = namespace.join('|');
  const visit = (current: JsonValue): JsonObject | undefined => {
    if (!isJsonObject(current)) return undefined;
    const checkpoint = current.checkpoint;
    if (isJsonObject(checkpoint) && checkpoint.checkpoint_ns === wanted) return current;
    const tasks = Array.isArray(current.tasks) ? current.tasks : [];
    for (const task of tasks) {
      const found = isJsonObject(task) ? visit(task.state ?? null) : undefined;
      if (found) return found;
    }
    return undefined;
  };
  return visit(state as unknown as JsonValue);
}

/** A failure of the runtime's services, as the protocol's error. */
function asProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  const status = refusalStatusOf(error);
  if (status === undefined || status >= 500) {
    return new ProtocolError('unknown_error', 'The command failed on the server');
  }
  const code = status === 401 || status === 403 ? 'permission_denied' : 'invalid_argument';
  return new ProtocolError(code, (error as Error).message);
}

/**
 * The commands of thread streaming v2 (`POST /threads/{id}/commands`, and the WebSocket's): each
 * is served by the runtime's own services, so a run started here is an ordinary run of the thread.
 */
@Injectable()
export class ProtocolCommands {
  constructor(
    @Inject(RunsService) private readonly runs: RunsService,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ThreadsService) private readonly threads: ThreadsService,
    @Inject(ThreadStateService) private readonly state: ThreadStateService,
    @Inject(EventStore) private readonly store: EventStore,
  ) {}

  /** `caller`: the user of the application's auth the runs it starts are for. */
  async handle(
    threadId: string,
    command: ProtocolCommand,
    caller?: RunCaller,
  ): Promise<ProtocolResponse> {
    try {
      const result = await this.dispatch(threadId, command, caller);
      return protocolSuccess(command.id, result);
    } catch (error) {
      const failure = asProtocolError(error);
      return protocolFailure(command.id, failure.code, failure.message);
    }
  }

  private dispatch(
    threadId: string,
    { method, params }: ProtocolCommand,
    caller: RunCaller | undefined,
  ): Promise<JsonObject> {
    switch (method) {
      case 'run.start':
        return this.runStart(threadId, params, caller);
      case 'input.respond':
        return this.inputRespond(threadId, params, caller);
      case 'input.inject':
        return this.inputInject(threadId, params, caller);
      case 'state.get':
        return this.stateGet(threadId, params);
      case 'state.listCheckpoints':
        return this.listCheckpoints(threadId, params);
      case 'state.fork':
        return this.fork(threadId, params, caller);
      case 'agent.getTree':
        return this.tree(threadId, params);
      case 'subscription.subscribe':
      case 'subscription.unsubscribe':
      case 'subscription.reconnect':
        throw new ProtocolError(
          'not_supported',
          `${method} belongs to the WebSocket transport; over HTTP, each POST /threads/${threadId}/stream/events is a subscription`,
        );
      default:
        throw new ProtocolError('unknown_command', `Unknown protocol command: ${method}`);
    }
  }

  private async runStart(
    threadId: string,
    params: JsonObject,
    caller: RunCaller | undefined,
  ): Promise<JsonObject> {
    const assistantId = requiredString(params, 'assistant_id', 'run.start');
    const input = params.input ?? null;
    const resume = input !== null && (await this.pendingInterrupts(threadId)).size > 0;
    const run = await this.startRun(
      threadId,
      params,
      { assistant_id: assistantId, ...(resume ? { command: { resume: input } } : { input }) },
      caller,
    );
    return { run_id: run };
  }

  private async inputRespond(
    threadId: string,
    params: JsonObject,
    caller: RunCaller | undefined,
  ): Promise<JsonObject> {
    const responses: JsonObject = {};
    if (Array.isArray(params.responses)) {
      for (const entry of params.responses) {
        if (!isJsonObject(entry) || typeof entry.interrupt_id !== 'string') {
          throw new ProtocolError('invalid_argument', 'each response needs an interrupt_id');
        }
        responses[entry.interrupt_id] = entry.response ?? null;
      }
    } else {
      responses[requiredString(params, 'interrupt_id', 'input.respond')] = params.response ?? null;
    }
    if (Object.keys(responses).length === 0) {
      throw new ProtocolError('invalid_argument', 'input.respond requires at least one response');
    }
    const assistantId = await this.assistantOf(threadId);
    const open = await this.pendingInterrupts(threadId);
    const unknown = Object.keys(responses).find((id) => !open.has(id));
    if (unknown !== undefined) {
      throw new ProtocolError('no_such_interrupt', `No open interrupt ${unknown} on this thread`);
    }
    const command: JsonObject = { resume: responses };
    if (params.update !== undefined && params.update !== null) command.update = params.update;
    if (params.goto !== undefined && params.goto !== null) command.goto = params.goto;
    const run = await this.startRun(
      threadId,
      params,
      { assistant_id: assistantId, command },
      caller,
    );
    return { run_id: run };
  }

  private async inputInject(
    threadId: string,
    params: JsonObject,
    caller: RunCaller | undefined,
  ): Promise<JsonObject> {
    const message = objectParam(params, 'message');
    if (!message || typeof message.content !== 'string') {
      throw new ProtocolError('invalid_argument', 'input.inject requires a message with content');
    }
    const run = await this.startRun(
      threadId,
      { ...params, multitaskStrategy: 'enqueue' },
      { assistant_id: await this.assistantOf(threadId), input: { messages: [message] } },
      caller,
    );
    return { run_id: run };
  }

  private async stateGet(threadId: string, params: JsonObject): Promise<JsonObject> {
    const namespace = namespaceParam(params);
    const keys = params.keys;
    if (
      keys !== undefined &&
      (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string'))
    ) {
      throw new ProtocolError('invalid_argument', 'keys must be an array of strings');
    }
    const whole = await this.state.state(threadId, undefined, namespace.length > 0);
    const state =
      namespace.length === 0 ? (whole as unknown as JsonObject) : stateAt(whole, namespace);
    if (!state) {
      throw new ProtocolError('no_such_namespace', `No subgraph at ${JSON.stringify(namespace)}`);
    }
    const values = isJsonObject(state.values) ? state.values : {};
    const picked = Array.isArray(keys)
      ? Object.fromEntries(Object.entries(values).filter(([key]) => keys.includes(key)))
      : values;
    const checkpoint = isJsonObject(state.checkpoint) ? state.checkpoint : undefined;
    return {
      values: picked,
      ...(checkpoint && typeof checkpoint.checkpoint_id === 'string'
        ? {
            checkpoint: {
              id: checkpoint.checkpoint_id,
              ...(typeof checkpoint.checkpoint_ns === 'string'
                ? { ns: checkpoint.checkpoint_ns }
                : {}),
            },
          }
        : {}),
    };
  }

  private async listCheckpoints(threadId: string, params: JsonObject): Promise<JsonObject> {
    if (namespaceParam(params).length > 0) {
      throw new ProtocolError('not_supported', 'Checkpoints are listed for the root graph only');
    }
    const limit = params.limit ?? 10;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new ProtocolError('invalid_argument', 'limit must be a whole number from 1 to 1000');
    }
    const before = stringParam(params, 'before');
    const history = await this.state.history(threadId, {
      limit,
      ...(before ? { before: { configurable: { checkpoint_id: before } } } : {}),
    });
    const checkpoints = history.flatMap((state): JsonObject[] => {
      const metadata = isJsonObject(state.metadata) ? state.metadata : {};
      if (state.checkpoint_id === null) return [];
      const writes = isJsonObject(metadata.writes) ? Object.keys(metadata.writes) : [];
      return [
        {
          id: state.checkpoint_id,
          timestamp: state.created_at ?? '',
          step: typeof metadata.step === 'number' ? metadata.step : -1,
          ...(writes.length === 1 ? { node_name: writes[0] as string } : {}),
          metadata,
        },
      ];
    });
    return { checkpoints };
  }

  private async fork(
    threadId: string,
    params: JsonObject,
    caller: RunCaller | undefined,
  ): Promise<JsonObject> {
    const checkpointId = requiredString(params, 'checkpoint_id', 'state.fork');
    try {
      await this.state.state(threadId, { checkpoint_id: checkpointId }, false);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') {
        throw new ProtocolError(
          'no_such_checkpoint',
          `No checkpoint ${checkpointId} on this thread`,
        );
      }
      throw error;
    }
    const run = await this.startRun(
      threadId,
      params,
      {
        assistant_id: await this.assistantOf(threadId),
        input: params.input ?? null,
        checkpoint_id: checkpointId,
      },
      caller,
    );
    return { run_id: run, thread_id: threadId };
  }

  private async tree(threadId: string, params: JsonObject): Promise<JsonObject> {
    const given = stringParam(params, 'run_id');
    const runIds = given ? [given] : (await this.runs.runIdsOfThread(threadId)).sort().slice(-1);
    const runId = runIds[0];
    if (runId === undefined) throw new ProtocolError('no_such_run', 'The thread has no run yet');
    const events = await this.store.readStream(runStream(runId));
    if (events[0]?.data.thread_id !== threadId) {
      throw new ProtocolError('no_such_run', `No run ${runId} on this thread`);
    }
    const translator = new RunTranslator(runId);
    const chunks = new ValuesChunkExpander(this.store);
    for (const event of events) translator.translate(await chunks.expand(event));
    return { tree: agentTree(translator.tree()) };
  }

  private async startRun(
    threadId: string,
    params: JsonObject,
    asked: Partial<CreateRunDto> & { assistant_id: string },
    caller: RunCaller | undefined,
  ): Promise<string> {
    const body = protocolRunBody(params, asked);
    const run = await this.commands.execute(new CreateRun(threadId, body, now(), caller));
    return run.data.run_id;
  }

  private async pendingInterrupts(threadId: string): Promise<Set<string>> {
    if (!(await this.threads.exists(threadId))) return new Set();
    return openInterrupts(await this.state.state(threadId, undefined, true));
  }

  private async assistantOf(threadId: string): Promise<string> {
    const exists = await this.threads.exists(threadId);
    const row = exists ? await this.threads.row(threadId) : undefined;
    const assistantId = row?.metadata.assistant_id;
    if (typeof assistantId !== 'string') {
      throw new ProtocolError('no_such_run', 'The thread has had no run: call run.start first');
    }
    return assistantId;
  }
}
