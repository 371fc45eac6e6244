import type { AgentCard, Message, SendMessageRequest, StreamResponse, Task } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  type AgentExecutor,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import type { MessageAdmissions } from './message-admissions.js';

/**
 * The SDK's request handler for one request, each message admitted before the SDK makes its
 * task: the SDK turns whatever its executor throws into a `failed` task, so a message refused
 * is refused here, as a JSON-RPC error. No event bus outlives the request: a task is read back
 * from its runs.
 */
export class RunRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    store: TaskStore,
    executor: AgentExecutor,
    private readonly admissions: MessageAdmissions,
  ) {
    super(
      card,
      store,
      executor,
      new DefaultExecutionEventBusManager(),
      undefined,
      undefined,
      undefined,
      undefined,
      { keepBusAliveStates: [] },
    );
  }

  override async sendMessage(
    request: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    return super.sendMessage(await this.admissions.admit(request, context), context);
  }

  override async *sendMessageStream(
    request: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    yield* super.sendMessageStream(await this.admissions.admit(request, context), context);
  }
}
