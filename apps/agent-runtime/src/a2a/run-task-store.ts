import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { authOf } from './a2a-caller.js';
import type { RunTasks } from './run-tasks.js';

/**
 * The SDK's task store over the runtime's runs: a task is read from its runs (their log and read
 * model), so it is the same on every replica and after a restart. What the SDK saves is already
 * there, but for one change that is a command: a task saved as cancelled cancels its run.
 */
export class RunTaskStore implements TaskStore {
  constructor(private readonly tasks: RunTasks) {}

  async save(task: Task, context: ServerCallContext): Promise<void> {
    if (task.status?.state !== TaskState.TASK_STATE_CANCELED) return;
    await this.tasks.cancel(task.id, authOf(context));
  }

  load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return this.tasks.task(taskId, authOf(context));
  }

  list(_params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    return Promise.reject(
      new UnsupportedOperationError('Listing tasks is not served: read the threads instead'),
    );
  }
}
