import { TaskState, type SendMessageRequest } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { uuidv7 } from '#libs/event-store';
import { authOf } from './a2a-caller.js';
import type { A2aRunCreation, AdmittedRun } from './a2a-run-creation.js';
import { graphInputOf, resumeValueOf } from './message-input.js';
import type { RunTasks } from './run-tasks.js';

const WORKING: readonly TaskState[] = [
  TaskState.TASK_STATE_SUBMITTED,
  TaskState.TASK_STATE_WORKING,
];

/**
 * The messages of one request, admitted before the SDK makes their task: a message starting a
 * task names its context (a new thread's id when it names none), one continuing a task is an
 * answer to its question; the application's auth lets each make its run. What the SDK refuses
 * itself (an unknown or ended task, a context that is not the task's) is left to it.
 */
export class MessageAdmissions {
  private readonly admitted = new Map<string, AdmittedRun>();

  constructor(
    private readonly assistantId: string,
    private readonly creation: A2aRunCreation,
    private readonly tasks: RunTasks,
  ) {}

  /** Admits the request's message, or throws the A2A error why not; the request to hand on. */
  async admit(
    request: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<SendMessageRequest> {
    const message = request.message;
    if (!message?.messageId) return request;
    const who = authOf(context);
    const assistant_id = this.assistantId;
    if (!message.taskId) {
      const contextId = message.contextId || uuidv7();
      const body = { assistant_id, input: graphInputOf(message) };
      this.admitted.set(message.messageId, await this.creation.admit(who, contextId, body));
      return { ...request, message: { ...message, contextId } };
    }
    const task = await this.tasks.task(message.taskId, who);
    if (!task || (message.contextId && message.contextId !== task.contextId)) return request;
    const state = task.status?.state;
    if (state !== undefined && WORKING.includes(state)) {
      throw new UnsupportedOperationError(
        `Task ${task.id} is still working: send to it once it asks for input`,
      );
    }
    if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) return request;
    const body = { assistant_id, command: { resume: resumeValueOf(message) } };
    this.admitted.set(message.messageId, await this.creation.admit(who, task.contextId, body));
    return request;
  }

  /** The run admitted for the message; the SDK runs the executor only for admitted ones. */
  take(messageId: string): AdmittedRun {
    const admitted = this.admitted.get(messageId);
    if (!admitted) throw new Error(`The message ${messageId} was not admitted`);
    this.admitted.delete(messageId);
    return admitted;
  }
}
