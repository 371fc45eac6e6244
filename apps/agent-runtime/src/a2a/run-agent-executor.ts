import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { TaskState, type Task } from '@a2a-js/sdk';
import type { AuthContext } from '../auth/custom-auth.js';
import type { RunsService } from '../runs/runs.service.js';
import type { A2aRunCreation } from './a2a-run-creation.js';
import type { MessageAdmissions } from './message-admissions.js';
import { MESSAGE_ID_KEY } from './message-input.js';
import { TASK_ID_KEY, type RunTasks } from './run-tasks.js';
import { answerArtifact } from './task-parts.js';
import { taskStatusOf } from './task-of-run.js';

/**
 * An assistant as an A2A agent: an admitted message starts a run of it on the thread of the
 * message's context (a new task: the run's id is the task's), or resumes the thread's
 * interrupted task; the events told are the run's, read back from its log.
 */
export class RunAgentExecutor implements AgentExecutor {
  constructor(
    /** Who the request acts for: the executor serves one request. */
    private readonly who: AuthContext | undefined,
    private readonly admissions: MessageAdmissions,
    private readonly creation: A2aRunCreation,
    private readonly runs: RunsService,
    private readonly tasks: RunTasks,
  ) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const message = request.userMessage;
    const admitted = this.admissions.take(message.messageId);
    const metadata = { [TASK_ID_KEY]: taskId, [MESSAGE_ID_KEY]: message.messageId };
    const resuming = request.task !== undefined;
    const runId = await this.creation.create(admitted, metadata, resuming ? undefined : taskId);
    const ids = { taskId, contextId };
    const task: Task = {
      id: taskId,
      contextId,
      status: {
        state: TaskState.TASK_STATE_SUBMITTED,
        message: undefined,
        timestamp: new Date().toISOString(),
      },
      artifacts: [],
      history: [message],
      metadata: { run_id: runId, thread_id: contextId },
    };
    bus.publish(AgentEvent.task(task));
    bus.publish(
      AgentEvent.statusUpdate({
        ...ids,
        status: taskStatusOf(ids, { runId, status: 'running' }, undefined),
        metadata: {},
      }),
    );
    const finished = await this.runs.waitForFinish(runId, { justCreated: true });
    const status = taskStatusOf(ids, { runId, status: finished.status }, finished);
    if (status.state === TaskState.TASK_STATE_COMPLETED) {
      bus.publish(
        AgentEvent.artifactUpdate({
          ...ids,
          artifact: answerArtifact(finished.values),
          append: false,
          lastChunk: true,
          metadata: {},
        }),
      );
    }
    bus.publish(AgentEvent.statusUpdate({ ...ids, status, metadata: {} }));
    bus.finished();
  }

  /** Cancels the task's run; `execute`, waiting for it, then tells that it was cancelled. */
  async cancelTask(taskId: string): Promise<void> {
    await this.tasks.cancel(taskId, this.who);
  }
}
